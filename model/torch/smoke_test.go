//go:build torch

package torch

import (
	"testing"

	"github.com/sugarme/gotch/ts"
)

// TestSmokeMatmul checks that gotch links against libtorch and computes a matmul on the CPU.
func TestSmokeMatmul(t *testing.T) {
	a := ts.MustOfSlice([]float32{1, 2, 3, 4, 5, 6}).MustView([]int64{2, 3}, true)
	defer a.MustDrop()
	b := ts.MustOfSlice([]float32{1, 0, 0, 1, 1, 1}).MustView([]int64{3, 2}, true)
	defer b.MustDrop()
	c := a.MustMatmul(b, false)
	defer c.MustDrop()
	got := c.Float64Values()
	want := []float64{4, 5, 10, 11}
	if len(got) != len(want) {
		t.Fatalf("matmul: got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("matmul: got %v, want %v", got, want)
		}
	}
	if d := c.MustDevice(); d.IsCuda() {
		t.Fatalf("device: got %v, want cpu", d)
	}
}
