package protocol

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

func TestTailBuffer(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, max := range []int{1, 7, 64} {
		tb := newTailBuffer(max)
		var all strings.Builder
		for i := range 200 {
			chunk := strings.Repeat(string(rune('a'+i%26)), rng.IntN(2*max+2))
			if n, err := tb.Write([]byte(chunk)); n != len(chunk) || err != nil {
				t.Fatal(n, err)
			}
			all.WriteString(chunk)
			want := all.String()
			if len(want) > max {
				want = want[len(want)-max:]
			}
			if got := tb.String(); got != want {
				t.Fatalf("max %d after %d writes: %q, want %q", max, i+1, got, want)
			}
		}
	}
	if tb := newTailBuffer(-1); tb.String() != "" {
		t.Fatal("negative size keeps bytes")
	} else if n, _ := tb.Write([]byte("abc")); n != 3 || tb.String() != "" {
		t.Fatal("negative size keeps bytes")
	}

	tb := newTailBuffer(16)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				tb.Write([]byte("xyz\n"))
				_ = tb.String()
			}
		})
	}
	wg.Wait()
	if got := tb.String(); len(got) != 16 || strings.Count(got, "xyz\n") != 4 {
		t.Fatalf("concurrent writes: %q", got)
	}
}
