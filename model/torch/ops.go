//go:build torch

package torch

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

// scope owns the tensors and scalars one computation creates and drops them all in drop. The first
// error sticks: later operations return nil without calling libtorch, so a chain of operations needs
// one error check at the end. gotch's Must* functions call log.Fatal and are not used.
type scope struct {
	err     error
	tensors []*ts.Tensor
	scalars []*ts.Scalar
}

// do runs f unless an earlier step failed, and takes ownership of its result.
func (s *scope) do(what string, f func() (*ts.Tensor, error)) *ts.Tensor {
	if s.err != nil {
		return nil
	}
	t, err := f()
	if err != nil {
		s.err = fmt.Errorf("torch: %s: %w", what, err)
		return nil
	}
	s.tensors = append(s.tensors, t)
	return t
}

// inplace runs an in-place operation unless an earlier step failed.
func (s *scope) inplace(what string, f func() error) {
	if s.err != nil {
		return
	}
	if err := f(); err != nil {
		s.err = fmt.Errorf("torch: %s: %w", what, err)
	}
}

// own takes ownership of a tensor created elsewhere.
func (s *scope) own(t *ts.Tensor) *ts.Tensor {
	if t != nil {
		s.tensors = append(s.tensors, t)
	}
	return t
}

// disown removes t from the scope (the caller keeps it past drop).
func (s *scope) disown(t *ts.Tensor) *ts.Tensor {
	for i, u := range s.tensors {
		if u == t {
			s.tensors = append(s.tensors[:i], s.tensors[i+1:]...)
			break
		}
	}
	return t
}

// scalar returns a libtorch scalar owned by the scope.
func (s *scope) scalar(v float64) *ts.Scalar {
	sc := ts.FloatScalar(v)
	s.scalars = append(s.scalars, sc)
	return sc
}

// drop frees everything the scope owns.
func (s *scope) drop() {
	for _, t := range s.tensors {
		dropTensor(t)
	}
	for _, sc := range s.scalars {
		_ = sc.Drop()
	}
	s.tensors, s.scalars = nil, nil
}

func dropTensor(t *ts.Tensor) {
	if t != nil {
		_ = t.Drop()
	}
}

// Layer helpers. With half set, convolutions and fully connected layers run in bfloat16 (inputs and
// weights cast; the result cast back to float32 for batch norm and the losses).

func (s *scope) conv(x, w, b *ts.Tensor, k int64, half bool) *ts.Tensor {
	pad := (k - 1) / 2
	if b == nil {
		b = ts.None
	}
	if half {
		x = s.toBF16(x)
		w = s.toBF16(w)
		if b != ts.None {
			b = s.toBF16(b)
		}
		y := s.do("conv2d", func() (*ts.Tensor, error) {
			return ts.Conv2d(x, w, b, []int64{1, 1}, []int64{pad, pad}, []int64{1, 1}, 1)
		})
		return s.toF32(y)
	}
	return s.do("conv2d", func() (*ts.Tensor, error) {
		return ts.Conv2d(x, w, b, []int64{1, 1}, []int64{pad, pad}, []int64{1, 1}, 1)
	})
}

func (s *scope) linear(x, w, b *ts.Tensor, half bool) *ts.Tensor {
	if half {
		x, w, b = s.toBF16(x), s.toBF16(w), s.toBF16(b)
		return s.toF32(s.do("linear", func() (*ts.Tensor, error) { return ts.Linear(x, w, b) }))
	}
	return s.do("linear", func() (*ts.Tensor, error) { return ts.Linear(x, w, b) })
}

func (s *scope) batchNorm(x, g, b, mean, variance *ts.Tensor, training bool) *ts.Tensor {
	return s.do("batch_norm", func() (*ts.Tensor, error) {
		return ts.BatchNorm(x, g, b, mean, variance, training, bnMomentum, bnEps, true)
	})
}

// gpool returns y + the global pooling bias of x (model.Config.GlobalPool): Concat(mean, max of x
// over the cells) [N, 2C, 1, 1] through w [cy, 2C] as a 1×1 convolution, broadcast over y's cells
// (the ONNX export's graph). y is not modified (the ReLU before it needs its output).
func (s *scope) gpool(x, y, w *ts.Tensor, half bool) *ts.Tensor {
	mean := s.do("gpool mean", func() (*ts.Tensor, error) { return x.MeanDim([]int64{2, 3}, true, gotch.Float, false) })
	mx := s.do("gpool max", func() (*ts.Tensor, error) { return x.Amax([]int64{2, 3}, true, false) })
	g := s.do("gpool cat", func() (*ts.Tensor, error) { return ts.Cat([]*ts.Tensor{mean, mx}, 1) })
	w4 := s.do("gpool weight", func() (*ts.Tensor, error) { return w.View([]int64{w.MustSize()[0], -1, 1, 1}, false) })
	b := s.conv(g, w4, nil, 1, half)
	return s.do("gpool add", func() (*ts.Tensor, error) { return y.Add(b, false) })
}

func (s *scope) relu_(x *ts.Tensor) *ts.Tensor {
	s.inplace("relu_", func() error { return x.Relu_() })
	return x
}

func (s *scope) add_(x, y *ts.Tensor) *ts.Tensor {
	s.inplace("add_", func() error { return x.Add_(y) })
	return x
}

func (s *scope) flatten(x *ts.Tensor) *ts.Tensor {
	return s.do("flatten", func() (*ts.Tensor, error) { return x.Flatten(1, -1, false) })
}

func (s *scope) toBF16(x *ts.Tensor) *ts.Tensor {
	return s.do("to bfloat16", func() (*ts.Tensor, error) { return x.Totype(gotch.BFloat16, false) })
}

func (s *scope) toF32(x *ts.Tensor) *ts.Tensor {
	return s.do("to float32", func() (*ts.Tensor, error) { return x.Totype(gotch.Float, false) })
}

// clone returns a deep copy of x.
func (s *scope) clone(x *ts.Tensor) *ts.Tensor {
	return s.do("clone", func() (*ts.Tensor, error) { return x.Copy(x, false, false) })
}

// item returns the value of a one-element tensor.
func (s *scope) item(x *ts.Tensor) float64 {
	if s.err != nil {
		return math.NaN()
	}
	v, err := x.Float64Value([]int64{})
	if err != nil {
		s.err = fmt.Errorf("torch: item: %w", err)
		return math.NaN()
	}
	return v
}

// upload copies data into a new tensor of the given shape on dev (float32 or bool).
func (s *scope) uploadF32(data []float32, shape []int64, dev gotch.Device) *ts.Tensor {
	if s.err != nil {
		return nil
	}
	t, err := newF32(data, shape, dev)
	if err != nil {
		s.err = err
		return nil
	}
	return s.own(t)
}

func (s *scope) uploadBool(data []bool, shape []int64, dev gotch.Device) *ts.Tensor {
	if s.err != nil {
		return nil
	}
	t, err := newFromBytes(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), len(data)), shape, gotch.Bool, dev)
	if err != nil {
		s.err = err
		return nil
	}
	return s.own(t)
}

// download copies a float32 tensor into dst (len(dst) = numel).
func (s *scope) download(x *ts.Tensor, dst []float32) {
	if s.err != nil {
		return
	}
	s.err = copyOut(x, dst)
}

func numel(shape []int64) int {
	n := 1
	for _, d := range shape {
		n *= int(d)
	}
	return n
}

// newF32 returns a new float32 tensor holding a copy of data, on dev.
func newF32(data []float32, shape []int64, dev gotch.Device) (*ts.Tensor, error) {
	if len(data) != numel(shape) {
		return nil, fmt.Errorf("torch: %d values for shape %v", len(data), shape)
	}
	return newFromBytes(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), 4*len(data)), shape, gotch.Float, dev)
}

// newFromBytes allocates a CPU tensor, copies the raw bytes into its storage (one memcpy, no
// per-element encoding as in ts.OfSlice) and moves it to dev.
func newFromBytes(raw []byte, shape []int64, dtype gotch.DType, dev gotch.Device) (*ts.Tensor, error) {
	t, err := ts.Empty(shape, dtype, gotch.CPU)
	if err != nil {
		return nil, fmt.Errorf("torch: empty %v: %w", shape, err)
	}
	if len(raw) > 0 {
		ptr, err := t.DataPtr()
		if err != nil || ptr == nil {
			dropTensor(t)
			return nil, errors.Join(errors.New("torch: tensor has no data pointer"), err)
		}
		copy(unsafe.Slice((*byte)(ptr), len(raw)), raw)
	}
	if !dev.IsCuda() {
		return t, nil
	}
	d, err := t.To(dev, true)
	if err != nil {
		return nil, fmt.Errorf("torch: to %s: %w", deviceString(dev), err)
	}
	return d, nil
}
