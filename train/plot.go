package train

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/yinsh-zero/yinsh/model"
)

// WritePlots renders plots/losses.png and plots/length.png from metrics.jsonl, and plots/rating.png
// from results.jsonl.
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
		{"length.png", "Self-play game length", "actions per game", []any{
			"mean length", series(func(m *Metrics) (float64, bool) { return m.SelfPlay.MeanLength, m.SelfPlay.Games > 0 }),
		}},
	}
	if err := writeRatingPlot(dir); err != nil {
		return fmt.Errorf("rating.png: %w", err)
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
		if err := savePNG(p, 6*vg.Inch, 4*vg.Inch, filepath.Join(dir, plotsDir, pl.file)); err != nil {
			return err
		}
	}
	return nil
}

// savePNG renders p at w × h into path atomically.
func savePNG(p *plot.Plot, w, h vg.Length, path string) error {
	wt, err := p.WriterTo(w, h, "png")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return err
	}
	return model.WriteFileAtomic(path, buf.Bytes())
}

// writeRatingPlot draws every generation's Elo, fitted now from all of the run's results (so early
// generations gain from later matches), with its 95% interval as error bars, relative to the anchor
// (gen-0000 once the ladder reaches it); the baselines are horizontal dashed lines.
func writeRatingPlot(dir string) error {
	ratings, anchor, err := runRatings(dir)
	if err != nil {
		return nil // nothing rated yet: no plot
	}
	var pts plotter.XYs
	var errs plotter.YErrors
	type baseline struct {
		name string
		elo  float64
	}
	var bases []baseline
	last := 0
	for _, r := range ratings {
		var g int
		if n, _ := fmt.Sscanf(r.Player, "gen-%04d", &g); n == 1 && len(r.Player) == len(GenName(g)) {
			if !r.Elo.finite() {
				continue
			}
			pts = append(pts, plotter.XY{X: float64(g), Y: r.Elo.Value})
			errs = append(errs, struct{ Low, High float64 }{r.Elo.Value - r.Elo.Low, r.Elo.High - r.Elo.Value})
			last = max(last, g)
		} else if !math.IsInf(r.Elo.Value, 0) {
			bases = append(bases, baseline{r.Player, r.Elo.Value})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	sort.Sort(byX{pts, errs})
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Rating of each generation (%s = 0), 95%% intervals", anchor)
	p.X.Label.Text = "generation"
	p.Y.Label.Text = "Elo"
	p.Add(plotter.NewGrid())
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{pts, errs})
	if err != nil {
		return err
	}
	p.Add(line, points, bars)
	p.Legend.Add("generations", line, points)
	for i, b := range bases {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: b.elo}, {X: float64(max(last, 1)), Y: b.elo}})
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i + 1)
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(b.name, l)
	}
	p.Legend.Top, p.Legend.Left = true, true
	return savePNG(p, 7*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, plotsDir, "rating.png"))
}

// byX sorts points and their error bars together by x.
type byX struct {
	xy plotter.XYs
	e  plotter.YErrors
}

func (b byX) Len() int           { return len(b.xy) }
func (b byX) Less(i, j int) bool { return b.xy[i].X < b.xy[j].X }
func (b byX) Swap(i, j int) {
	b.xy[i], b.xy[j] = b.xy[j], b.xy[i]
	b.e[i], b.e[j] = b.e[j], b.e[i]
}
