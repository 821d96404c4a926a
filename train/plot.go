package train

import (
	"bytes"
	"fmt"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/yinsh-zero/yinsh/model"
)

// WritePlots renders plots/losses.png, plots/rating.png and plots/length.png from metrics.jsonl.
func WritePlots(dir string) error {
	ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		return err
	}
	series := func(f func(m *Metrics) (float64, bool)) plotter.XYs {
		var xy plotter.XYs
		for i := range ms {
			if y, ok := f(&ms[i]); ok {
				xy = append(xy, plotter.XY{X: float64(ms[i].Generation), Y: y})
			}
		}
		return xy
	}
	trained := func(get func(t *TrainMetrics) float64) func(m *Metrics) (float64, bool) {
		return func(m *Metrics) (float64, bool) { return get(&m.Train), m.Train.Steps > 0 }
	}
	plots := []struct {
		file, title, ylabel string
		lines               []any
	}{
		{"losses.png", "Training loss", "loss (nats)", []any{
			"total", series(trained(func(t *TrainMetrics) float64 { return t.LossTotal })),
			"policy", series(trained(func(t *TrainMetrics) float64 { return t.LossPolicy })),
			"value", series(trained(func(t *TrainMetrics) float64 { return t.LossValue })),
		}},
		{"rating.png", "Rating of each generation (random = 0)", "Elo", []any{
			"elo", series(func(m *Metrics) (float64, bool) { e, ok := m.Ratings[GenName(m.Generation)]; return e, ok }),
		}},
		{"length.png", "Self-play game length", "actions per game", []any{
			"mean length", series(func(m *Metrics) (float64, bool) { return m.SelfPlay.MeanLength, m.SelfPlay.Games > 0 }),
		}},
	}
	for _, pl := range plots {
		p := plot.New()
		p.Title.Text = pl.title
		p.X.Label.Text = "generation"
		p.Y.Label.Text = pl.ylabel
		p.Add(plotter.NewGrid())
		if err := plotutil.AddLinePoints(p, pl.lines...); err != nil {
			return fmt.Errorf("%s: %w", pl.file, err)
		}
		w, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "png")
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if _, err := w.WriteTo(&buf); err != nil {
			return err
		}
		if err := model.WriteFileAtomic(filepath.Join(dir, plotsDir, pl.file), buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
