package model

import (
	"errors"
	"fmt"
	"slices"
)

// Average returns the element-wise mean of the weights of training checkpoints of one architecture
// (weight averaging: SWA over a run's last generations, as KataGo evaluates an average of recent
// weights). Every tensor is averaged, the batch-norm running statistics included (the mean of the
// running means and of the running variances: an approximation to recomputing them on data, close
// when the networks are consecutive checkpoints of one run). The optimiser state is dropped. The
// metadata is the last checkpoint's (its variant, run, generation and step) without the optimiser.
// The sum is accumulated in float64, so the order of cks changes nothing but the metadata.
func Average(cks []*Checkpoint) (*Checkpoint, error) {
	if len(cks) == 0 {
		return nil, errors.New("model: no checkpoints to average")
	}
	for i, c := range cks {
		if c.Meta.Kind != KindTraining {
			return nil, fmt.Errorf("model: checkpoint %d of %d is kind %q; only %q checkpoints (batch norm not folded) can be averaged",
				i+1, len(cks), c.Meta.Kind, KindTraining)
		}
		if c.Meta.Net != cks[0].Meta.Net {
			return nil, fmt.Errorf("model: checkpoint %d of %d is net %+v, checkpoint 1 is %+v: only one architecture can be averaged",
				i+1, len(cks), c.Meta.Net, cks[0].Meta.Net)
		}
		if c.Meta.Variant != cks[0].Meta.Variant {
			return nil, fmt.Errorf("model: checkpoint %d of %d is for variant %q, checkpoint 1 for %q", i+1, len(cks), c.Meta.Variant, cks[0].Meta.Variant)
		}
	}
	last, err := cks[len(cks)-1].WithoutOptimizer()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(last.Tensors))
	for n := range last.Tensors {
		names = append(names, n)
	}
	slices.Sort(names)
	n := float64(len(cks))
	for _, name := range names {
		dst := last.Tensors[name]
		sum := make([]float64, len(dst.Data))
		for i, c := range cks {
			t, ok := c.Tensors[name]
			if !ok || !slices.Equal(t.Shape, dst.Shape) {
				return nil, fmt.Errorf("model: checkpoint %d of %d has no tensor %s of shape %v", i+1, len(cks), name, dst.Shape)
			}
			for j, v := range t.Data {
				sum[j] += float64(v)
			}
		}
		for j := range dst.Data {
			dst.Data[j] = float32(sum[j] / n)
		}
	}
	return last, last.Validate()
}
