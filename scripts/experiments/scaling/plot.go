package main

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/yinsh-zero/yinsh/internal/atomicfile"
	"github.com/yinsh-zero/yinsh/train"
)

// plotOptions configures plot.
type plotOptions struct {
	Pool, Dir string
	MoveTime  time.Duration
	// Anchor is the label of the player fixed at AnchorElo ("": the pool's first player without
	// compute); every other rating, the other anchors' included, is fitted relative to it.
	Anchor    string
	AnchorElo float64
	PNG, MD   string // output files ("": DIR/scaling.png, DIR/scaling.md)
	Out       io.Writer
}

// rated is one pool player's fitted rating.
type rated struct {
	entry
	Name   string
	Rating train.Rating
	Rated  bool // false: no games in the results
}

// fitPool fits the ratings of every results*.jsonl in the directory (train.FitRatings, as
// `yinsh ratings DIR --anchor NAME` does) and returns the pool's players with theirs, shifted so
// that the anchor has anchorElo.
func fitPool(p *pool, dir string, movetime time.Duration, anchor entry, anchorElo float64) ([]rated, error) {
	results, err := train.ReadResults(dir)
	if err != nil {
		return nil, err
	}
	aname := ratedName(anchor, movetime)
	rs, err := train.FitRatings(results, aname)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (the anchor %s must have played)", dir, err, aname)
	}
	byName := map[string]train.Rating{}
	for _, r := range rs {
		r.Elo.Value += anchorElo
		r.Elo.Low += anchorElo
		r.Elo.High += anchorElo
		byName[r.Player] = r
	}
	var out []rated
	for _, e := range p.Entries {
		n := ratedName(e, movetime)
		r, ok := byName[n]
		out = append(out, rated{entry: e, Name: n, Rating: r, Rated: ok})
	}
	return out, nil
}

// finite reports whether a rating and its interval are finite numbers.
func finite(r train.Rating) bool {
	for _, x := range []float64{r.Elo.Value, r.Elo.Low, r.Elo.High} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// curve is one network size's points, by compute.
type curve struct {
	Net    string
	Points []rated
}

// curves groups the rated players with compute by network size (in the pool's order of first
// appearance), each by compute.
func curves(rs []rated) []curve {
	var out []curve
	idx := map[string]int{}
	for _, r := range rs {
		if !r.HasCompute || !r.Rated || !finite(r.Rating) {
			continue
		}
		i, ok := idx[r.Net]
		if !ok {
			i = len(out)
			idx[r.Net] = i
			out = append(out, curve{Net: r.Net})
		}
		out[i].Points = append(out[i].Points, r)
	}
	for _, c := range out {
		sort.SliceStable(c.Points, func(a, b int) bool { return c.Points[a].Compute < c.Points[b].Compute })
	}
	return out
}

// perDoubling is the least-squares slope of Elo on log2(compute): the Elo gained per doubling of
// compute, and whether there were two distinct compute values to fit it from.
func perDoubling(c curve) (float64, bool) {
	var n, sx, sy, sxx, sxy float64
	for _, p := range c.Points {
		x := math.Log2(p.Compute)
		n++
		sx += x
		sy += p.Rating.Elo.Value
		sxx += x * x
		sxy += x * p.Rating.Elo.Value
	}
	d := n*sxx - sx*sx
	if n < 2 || d <= 1e-12 {
		return 0, false
	}
	return (n*sxy - sx*sy) / d, true
}

func plotRun(opts *plotOptions) error {
	p, anchor, err := readPoolAnchor(opts.Pool, opts.Anchor)
	if err != nil {
		return err
	}
	rs, err := fitPool(p, opts.Dir, opts.MoveTime, anchor, opts.AnchorElo)
	if err != nil {
		return err
	}
	png, md := opts.PNG, opts.MD
	if png == "" {
		png = filepath.Join(opts.Dir, "scaling.png")
	}
	if md == "" {
		md = filepath.Join(opts.Dir, "scaling.md")
	}
	title := fmt.Sprintf("Elo against training compute, %d ms a move (%s = %+g), 95%% intervals", opts.MoveTime.Milliseconds(), anchor.Label, opts.AnchorElo)
	if err := writePlot(png, title, p.Unit, rs); err != nil {
		return fmt.Errorf("%s: %w", png, err)
	}
	table := markdown(p, rs, anchor, opts.AnchorElo, opts.MoveTime)
	if err := atomicfile.WriteFile(md, []byte(table)); err != nil {
		return err
	}
	fmt.Fprint(opts.Out, table)
	fmt.Fprintf(opts.Out, "\nwrote %s and %s\n", png, md)
	return nil
}

// writePlot draws Elo (95% interval bars) against compute on a log axis, one line per network
// size; pool players without compute (anchors, baselines) are dashed horizontal lines.
func writePlot(path, title, unit string, rs []rated) error {
	cs := curves(rs)
	if len(cs) == 0 {
		return fmt.Errorf("no rated player with compute to plot")
	}
	pl := plot.New()
	pl.Title.Text = title
	pl.Title.Padding = vg.Points(8)
	pl.X.Label.Text = "training compute (" + unit + ", log scale)"
	pl.Y.Label.Text = "Elo"
	pl.X.Scale = plot.LogScale{}
	pl.Add(plotter.NewGrid())
	xmin, xmax := math.Inf(1), math.Inf(-1)
	lo, hi := math.Inf(1), math.Inf(-1)
	var ticks []plot.Tick
	seenTick := map[float64]bool{}
	for i, c := range cs {
		var xy plotter.XYs
		var errs plotter.YErrors
		for _, r := range c.Points {
			e := r.Rating.Elo
			xy = append(xy, plotter.XY{X: r.Compute, Y: e.Value})
			errs = append(errs, struct{ Low, High float64 }{e.Value - e.Low, e.High - e.Value})
			xmin, xmax = min(xmin, r.Compute), max(xmax, r.Compute)
			lo, hi = min(lo, e.Low), max(hi, e.High)
			if !seenTick[r.Compute] {
				seenTick[r.Compute] = true
				ticks = append(ticks, plot.Tick{Value: r.Compute, Label: strconv.FormatFloat(r.Compute, 'g', 4, 64)})
			}
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		line.Color, points.Color = plotutil.Color(i), plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		bars, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{xy, errs})
		if err != nil {
			return err
		}
		bars.Color = plotutil.Color(i)
		pl.Add(line, points, bars)
		name := c.Net
		if s, ok := perDoubling(c); ok {
			name = fmt.Sprintf("%s (%+.0f Elo per doubling)", c.Net, s)
		}
		pl.Legend.Add(name, line, points)
	}
	x0, x1 := xmin/1.25, xmax*1.25
	k := len(cs)
	for _, r := range rs {
		if r.HasCompute || !r.Rated || !finite(r.Rating) {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: r.Rating.Elo.Value}, {X: x1, Y: r.Rating.Elo.Value}})
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(k)
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		k++
		pl.Add(l)
		pl.Legend.Add(fmt.Sprintf("%s %+.0f", r.Label, r.Rating.Elo.Value), l)
		lo, hi = min(lo, r.Rating.Elo.Value), max(hi, r.Rating.Elo.Value)
	}
	sort.Slice(ticks, func(a, b int) bool { return ticks[a].Value < ticks[b].Value })
	// two nets' budgets are measured, so they differ a little (5.10 and 5.13 minutes): label only
	// the first of ticks closer than 15% on the log axis, so that labels do not print over each other
	last := 0.0
	for i := range ticks {
		if last > 0 && ticks[i].Value < last*1.15 {
			ticks[i].Label = ""
			continue
		}
		last = ticks[i].Value
	}
	pl.X.Tick.Marker = plot.ConstantTicks(ticks)
	pl.Y.Tick.Marker = wholeTicks{}
	pl.X.Min, pl.X.Max = x0, x1
	if hi > lo {
		// headroom above for the legend, which sits top left
		pl.Y.Min, pl.Y.Max = lo-0.05*(hi-lo), hi+0.08*(hi-lo)*float64(k+1)
	}
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Legend.XOffs, pl.Legend.YOffs = vg.Points(6), -vg.Points(4)
	return train.SavePNG(pl, 8*vg.Inch, 5*vg.Inch, path)
}

// markdown is the table for BENCHMARKS.md: every pool player's Elo and interval, by network size
// and compute, the anchors and baselines last, then the Elo per doubling of compute of each size.
func markdown(p *pool, rs []rated, anchor entry, anchorElo float64, movetime time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ratings at %d ms a move (`train.FitRatings` of every results*.jsonl in the directory, %s fixed at %+g):\n\n",
		movetime.Milliseconds(), anchor.Label, anchorElo)
	fmt.Fprintf(&b, "| net | compute (%s) | player | Elo | 95%% interval | games |\n|---|---|---|---|---|---|\n", p.Unit)
	row := func(r rated, compute string) {
		if !r.Rated {
			fmt.Fprintf(&b, "| %s | %s | %s | – | no games | 0 |\n", r.Net, compute, r.Label)
			return
		}
		e := r.Rating.Elo
		fmt.Fprintf(&b, "| %s | %s | %s | %+.0f | [%+.0f, %+.0f] | %d |\n", r.Net, compute, r.Label, e.Value, e.Low, e.High, r.Rating.Games)
	}
	var withCompute, without []rated
	for _, r := range rs {
		if r.HasCompute {
			withCompute = append(withCompute, r)
		} else {
			without = append(without, r)
		}
	}
	order := map[string]int{}
	for _, r := range withCompute {
		if _, ok := order[r.Net]; !ok {
			order[r.Net] = len(order)
		}
	}
	sort.SliceStable(withCompute, func(a, b int) bool {
		if x, y := order[withCompute[a].Net], order[withCompute[b].Net]; x != y {
			return x < y
		}
		return withCompute[a].Compute < withCompute[b].Compute
	})
	for _, r := range withCompute {
		row(r, strconv.FormatFloat(r.Compute, 'g', -1, 64))
	}
	for _, r := range without {
		row(r, "–")
	}
	b.WriteString("\n")
	for _, c := range curves(rs) {
		if s, ok := perDoubling(c); ok {
			fmt.Fprintf(&b, "- %s: %+.0f Elo per doubling of compute (least squares of Elo on log2 compute, %d points from %g to %g %s)\n",
				c.Net, s, len(c.Points), c.Points[0].Compute, c.Points[len(c.Points)-1].Compute, p.Unit)
		} else {
			fmt.Fprintf(&b, "- %s: one compute budget rated, no slope\n", c.Net)
		}
	}
	return b.String()
}

// wholeTicks are gonum's default ticks labelled as whole numbers (Elo needs no decimals).
type wholeTicks struct{}

func (wholeTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', 0, 64)
		}
	}
	return ts
}
