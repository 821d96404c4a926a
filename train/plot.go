package train

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/yinsh-zero/yinsh/internal/atomicfile"
)

// WritePlots renders the run's plots into plots/: from metrics.jsonl, against the generation,
//
//	losses.png    policy and value loss, one panel each
//	length.png    mean self-play game length
//	selfplay.png  self-play games per hour; outcome shares (white, black, draw)
//	training.png  learning rate; the candidate's score against the best and against each baseline
//
// and the same against wall time (cumulative elapsed time of the generations) in losses-time.png,
// length-time.png, selfplay-time.png, training-time.png; from results.jsonl rating.png (and
// rating-time.png). Legends sit to the right of the data.
func WritePlots(dir string) error {
	ms, err := ReadMetrics(filepath.Join(dir, MetricsFile))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, plotsDir), 0o755); err != nil {
		return err
	}
	// nothing rated yet (rerr): no rating plots
	var ratings []Rating
	var anchor, title string
	var gates []GateMatch
	rs, rerr := ReadResults(dir)
	if rerr == nil {
		ratings, anchor, rerr = FitRatingsAuto(rs)
	}
	if rerr == nil {
		title = ratingTitle(anchor, rs)
		gates = GateMatches(ms, rs)
		if err := writeRatingPlot(dir, ratings, gates, title); err != nil {
			return fmt.Errorf("rating.png: %w", err)
		}
	}
	wall, unit := wallTimes(ms)
	axes := []struct {
		suffix, label string
		x             func(i int) float64
	}{
		{"", "generation", func(i int) float64 { return float64(ms[i].Generation) }},
		{"-time", "wall time (" + unit.name + ")", func(i int) float64 { return wall[i] }},
	}
	for _, ax := range axes {
		for _, fig := range metricFigures(ms, ax.x) {
			file := fig.file + ax.suffix + ".png"
			if err := fig.save(filepath.Join(dir, plotsDir, file), ax.label); err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
		}
	}
	genX := map[int]float64{0: 0}
	for i := range ms {
		genX[ms[i].Generation] = wall[i]
	}
	if rerr != nil {
		return nil
	}
	if err := writeRatingPlotAt(dir, ratings, gates, title, "rating-time.png", "wall time ("+unit.name+")", func(g int) (float64, bool) {
		x, ok := genX[g]
		return x, ok
	}); err != nil {
		return fmt.Errorf("rating-time.png: %w", err)
	}
	return nil
}

// timeUnit is the unit of the wall-time axis.
type timeUnit struct {
	name    string
	seconds float64
}

// wallTimes returns each generation's end as cumulative elapsed time since the run started
// (generations' elapsed_s summed; time while a run was stopped does not count), in minutes for runs
// under three hours and in hours beyond.
func wallTimes(ms []Metrics) ([]float64, timeUnit) {
	sum := make([]float64, len(ms))
	total := 0.0
	for i := range ms {
		if e := ms[i].Elapsed; e > 0 && !math.IsInf(e, 0) {
			total += e
		}
		sum[i] = total
	}
	u := timeUnit{"minutes", 60}
	if total > 3*3600 {
		u = timeUnit{"hours", 3600}
	}
	for i := range sum {
		sum[i] /= u.seconds
	}
	return sum, u
}

// figure is one PNG: panels stacked vertically, sharing the x axis.
type figure struct {
	file, title string
	panels      []panel
}

// panel is one set of axes.
type panel struct {
	title, ylabel string
	series        []series
	// yMin, yMax fix the y range when yFixed (shares and scores: [0, 1]).
	yFixed     bool
	yMin, yMax float64
	// yFromZero starts the y axis at 0 (a learning rate).
	yFromZero bool
	// ref draws a dashed horizontal reference line at refY, named ref, when ref != "".
	ref  string
	refY float64
}

// scoreTitle is the score panel's title, saying when there was no gating match to plot.
func scoreTitle(vsBest series) string {
	if len(vsBest.xy) == 0 {
		return "candidate's score (no gating matches against the best)"
	}
	return "candidate's score"
}

type series struct {
	name string
	xy   plotter.XYs
}

// metricFigures describes the per-generation plots with x(i) the x coordinate of ms[i].
func metricFigures(ms []Metrics, x func(i int) float64) []figure {
	get := func(keep func(m *Metrics) bool, y func(m *Metrics) float64) plotter.XYs {
		var xy plotter.XYs
		for i := range ms {
			if m := &ms[i]; keep(m) {
				if v := y(m); !math.IsNaN(v) && !math.IsInf(v, 0) {
					xy = append(xy, plotter.XY{X: x(i), Y: v})
				}
			}
		}
		return xy
	}
	trained := func(m *Metrics) bool { return m.Train.Steps > 0 }
	played := func(m *Metrics) bool { return m.SelfPlay.Games > 0 }
	// measured: some games were played (not all recovered from a killed run's shards), so the
	// generation has a self-play speed
	measured := func(m *Metrics) bool { return m.SelfPlay.Games > m.SelfPlay.Recovered && !m.Recovered }
	gated := func(m *Metrics) bool { return !m.Eval.Skipped && m.Eval.BestGames > 0 }
	evaluated := func(m *Metrics) bool { return !m.Eval.Skipped }

	scores := []series{{"vs best", get(gated, func(m *Metrics) float64 { return m.Eval.VsBest })}}
	// the ladder: gen-0000 (the anchor) by name, the others by their distance to the candidate
	anchor := GenName(0)
	offsets := map[int]bool{}
	hasAnchor := false
	for i := range ms {
		for name := range ms[i].Eval.Ladder {
			var h int
			if n, _ := fmt.Sscanf(name, "gen-%04d", &h); n != 1 {
				continue
			}
			if name == anchor {
				hasAnchor = true
			} else if k := ms[i].Generation - h; k > 0 {
				offsets[k] = true
			}
		}
	}
	if hasAnchor {
		scores = append(scores, series{"vs " + anchor, get(func(m *Metrics) bool {
			_, ok := m.Eval.Ladder[anchor]
			return evaluated(m) && ok
		}, func(m *Metrics) float64 { return m.Eval.Ladder[anchor] })})
	}
	ks := make([]int, 0, len(offsets))
	for k := range offsets {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	for _, k := range ks {
		name := func(m *Metrics) string { return GenName(m.Generation - k) }
		scores = append(scores, series{fmt.Sprintf("vs gen %d back", k), get(func(m *Metrics) bool {
			_, ok := m.Eval.Ladder[name(m)]
			return evaluated(m) && ok && name(m) != anchor
		}, func(m *Metrics) float64 { return m.Eval.Ladder[name(m)] })})
	}
	baselines := map[string]bool{}
	for i := range ms {
		for b := range ms[i].Eval.Baselines {
			baselines[b] = true
		}
	}
	names := make([]string, 0, len(baselines))
	for b := range baselines {
		names = append(names, b)
	}
	sort.Strings(names)
	for _, b := range names {
		scores = append(scores, series{"vs " + b, get(func(m *Metrics) bool {
			_, ok := m.Eval.Baselines[b]
			return evaluated(m) && ok
		}, func(m *Metrics) float64 { return m.Eval.Baselines[b] })})
	}
	return []figure{
		{"losses", "Training loss (mean over each generation's steps)", []panel{
			{title: "policy", ylabel: "cross-entropy (nats)", series: []series{
				{"policy loss", get(trained, func(m *Metrics) float64 { return m.Train.LossPolicy })}}},
			{title: "value", ylabel: "cross-entropy (nats)", series: []series{
				{"value loss", get(trained, func(m *Metrics) float64 { return m.Train.LossValue })}}},
		}},
		{"length", "Self-play game length", []panel{
			{ylabel: "actions per game", series: []series{
				{"mean length", get(played, func(m *Metrics) float64 { return m.SelfPlay.MeanLength })}}},
		}},
		{"selfplay", "Self-play", []panel{
			{title: "speed", ylabel: "games per hour", series: []series{
				{"games/hour", get(measured, func(m *Metrics) float64 { return m.SelfPlay.GamesPerHour })}}},
			{title: "outcomes", ylabel: "share of games", yFixed: true, yMin: 0, yMax: 1, series: []series{
				{"white wins", get(played, func(m *Metrics) float64 { return m.SelfPlay.White })},
				{"black wins", get(played, func(m *Metrics) float64 { return m.SelfPlay.Black })},
				{"draws", get(played, func(m *Metrics) float64 { return m.SelfPlay.Draw })},
			}},
		}},
		{"training", "Training and evaluation", []panel{
			{title: "learning rate", ylabel: "learning rate", yFromZero: true, series: []series{
				{"lr", get(trained, func(m *Metrics) float64 { return m.Train.LR })}}},
			{title: scoreTitle(scores[0]), ylabel: "score", yFixed: true, yMin: 0, yMax: 1, series: scores, ref: "even (0.5)", refY: 0.5},
		}},
	}
}

// niceTicks labels an axis at multiples of 1, 2 or 5 times a power of ten, about five of them,
// with unlabelled minor ticks between (integers stay integers: generations 0, 5, 10, …).
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	minor := step / 5
	if step/mag == 2 {
		minor = step / 4
	}
	prec := max(0, -int(math.Floor(math.Log10(step))))
	var ticks []plot.Tick
	first := math.Ceil(lo/minor - 1e-9)
	for i := first; i*minor <= hi+minor*1e-9; i++ {
		v := i*minor + 0 // +0: no "-0"
		t := plot.Tick{Value: v}
		if r := math.Mod(math.Abs(v)+step*1e-9, step); r < step*1e-6 {
			t.Label = strconv.FormatFloat(v, 'f', prec, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// Figure layout (inches).
const (
	figWidth    = 8.0
	panelHeight = 2.6
	titleHeight = 0.4
	legendPad   = 0.15
)

// save renders the figure with xlabel under its bottom panel, each panel's legend to its right.
func (f figure) save(path, xlabel string) error {
	n := len(f.panels)
	plots := make([][]*plot.Plot, n)
	legends := make([]plot.Legend, n)
	for i, pn := range f.panels {
		p := plot.New()
		p.Title.Text = pn.title
		p.Y.Label.Text = pn.ylabel
		if i == n-1 {
			p.X.Label.Text = xlabel
		}
		p.Add(plotter.NewGrid())
		leg := plot.NewLegend()
		leg.Top, leg.Left = true, true
		leg.TextStyle.Font.Size = vg.Points(10)
		leg.Padding = vg.Points(2)
		empty := true
		for k, s := range pn.series {
			if len(s.xy) == 0 {
				continue
			}
			empty = false
			line, points, err := plotter.NewLinePoints(s.xy)
			if err != nil {
				return err
			}
			line.Color = plotutil.Color(k)
			points.Color = plotutil.Color(k)
			points.Shape = plotutil.Shape(k)
			points.Radius = vg.Points(2)
			p.Add(line, points)
			leg.Add(s.name, line, points)
		}
		switch {
		case pn.yFixed:
			p.Y.Min, p.Y.Max = pn.yMin, pn.yMax
		case empty:
		case pn.yFromZero:
			p.Y.Min = 0
			if !(p.Y.Max > 0) {
				p.Y.Max = 1
			}
			p.Y.Max *= 1.1
		case p.Y.Min == p.Y.Max: // a constant: a range around it rather than ±1
			d := math.Abs(p.Y.Min) * 0.1
			if d == 0 {
				d = 1
			}
			p.Y.Min, p.Y.Max = p.Y.Min-d, p.Y.Max+d
		}
		p.X.Tick.Marker = niceTicks{}
		if pn.ref != "" {
			xmin, xmax := p.X.Min, p.X.Max
			if empty || xmax <= xmin {
				xmin, xmax = 0, 1
			}
			l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: pn.refY}, {X: xmax, Y: pn.refY}})
			if err != nil {
				return err
			}
			l.Color = color.Gray{Y: 128}
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(l)
			leg.Add(pn.ref, l)
		}
		if empty {
			p.Title.Text = strings.TrimSpace(pn.title + " (no data yet)")
		}
		plots[i] = []*plot.Plot{p}
		legends[i] = leg
	}
	// the legend column is as wide as the widest legend
	legW := vg.Length(0)
	for i := range legends {
		r := legends[i].Rectangle(draw.Canvas{})
		legW = max(legW, r.Max.X-r.Min.X)
	}
	legW += vg.Inch * legendPad * 2
	w := vg.Inch * figWidth
	h := vg.Inch * (panelHeight*vg.Length(n) + titleHeight)
	img := vgimg.New(w, h)
	dc := draw.New(img)
	drawFigureTitle(dc, w, h, f.title)
	area := draw.Crop(dc, 0, -legW, 0, -vg.Inch*titleHeight)
	tiles := draw.Tiles{Rows: n, Cols: 1, PadX: vg.Millimeter, PadY: vg.Millimeter * 4, PadTop: vg.Millimeter,
		PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, area)
	for i := range plots {
		c := canvases[i][0]
		plots[i][0].Draw(c)
		data := plots[i][0].DataCanvas(c)
		lc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: w - legW + vg.Inch*legendPad, Y: data.Min.Y},
			Max: vg.Point{X: w, Y: data.Max.Y},
		}}
		legends[i].Draw(lc)
	}
	return writePNG(path, img.Image())
}

// drawFigureTitle writes a multi-panel figure's title across the top of its w × h canvas dc.
func drawFigureTitle(dc draw.Canvas, w, h vg.Length, text string) {
	ts := plot.New().Title.TextStyle
	ts.Font.Size = vg.Points(13)
	ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
	dc.FillText(ts, vg.Point{X: w / 2, Y: h - vg.Points(6)}, text)
}

// SavePNG renders p at w × h into path as a PNG, atomically (internal/atomicfile): every plot of a
// run, and the research programs' (scripts/experiments), are written through it.
func SavePNG(p *plot.Plot, w, h vg.Length, path string) error {
	img := vgimg.New(w, h)
	p.Draw(draw.New(img))
	return writePNG(path, img.Image())
}

// pngEncoder compresses at zlib's fastest level: the loop redraws every plot after each generation,
// and the fastest level makes that about 15 % quicker than the default (BenchmarkWritePlots: 153 →
// 130 ms for the 8 plots) for files about 4 % larger. Most of what remains is the PNG row filters.
var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed}

// writePNG encodes img as a PNG into path, atomically.
func writePNG(path string, img image.Image) error {
	var buf bytes.Buffer
	if err := pngEncoder.Encode(&buf, img); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// writeRatingPlot draws every generation's Elo in ratings (fitted from all of the run's results, so early
// generations gain from later matches), with its 95% interval as error bars, relative to the anchor
// (gen-0000 once the ladder reaches it); the baselines are horizontal dashed lines. With gate matches
// (evaluation.games > 0) the generations the gate kept out are hollow, the best network's rating is a
// step line, and a lower panel shows each gate match (see writeRatingPlotAt).
func writeRatingPlot(dir string, ratings []Rating, gates []GateMatch, title string) error {
	return writeRatingPlotAt(dir, ratings, gates, title, "rating.png", "generation", func(g int) (float64, bool) { return float64(g), true })
}

// ratingTitle is the rating plots' title: the anchor, and the search budget the ratings were
// measured at (the results' simulations and move time per move), since a rating holds at its budget
// only: at the quickstart's 32 evaluation simulations a move `heuristic` rates above every
// generation, at 200 the last one beats it.
func ratingTitle(anchor string, rs []Result) string {
	t := fmt.Sprintf("Rating of each generation (%s = 0), 95%% intervals", anchor)
	if b := evalBudget(rs); b != "" {
		t += "\nevaluation: " + b
	}
	return t
}

// evalBudget describes the search budgets of the results' matches ("32 simulations per move"; with
// several, each with its number of matches, the most used first); "" when none is recorded.
func evalBudget(rs []Result) string {
	count := map[string]int{}
	for _, r := range rs {
		var k string
		switch {
		case r.Sims > 0 && r.MoveTimeMS > 0:
			k = fmt.Sprintf("%d simulations or %d ms", r.Sims, r.MoveTimeMS)
		case r.MoveTimeMS > 0:
			k = fmt.Sprintf("%d ms", r.MoveTimeMS)
		case r.Sims > 0:
			k = fmt.Sprintf("%d simulations", r.Sims)
		default:
			continue
		}
		count[k]++
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if count[keys[i]] != count[keys[j]] {
			return count[keys[i]] > count[keys[j]]
		}
		return keys[i] < keys[j]
	})
	switch len(keys) {
	case 0:
		return ""
	case 1:
		return keys[0] + " per move"
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s (%d match%s)", k, count[k], map[bool]string{true: "es"}[count[k] > 1])
	}
	return strings.Join(parts, ", ") + " per move"
}

// writeRatingPlotAt is writeRatingPlot with generation g drawn at x(g) (false: not drawn), labelled
// xlabel, into plots/file.
//
// The lower panel, drawn when gates is not empty, answers whether each gated generation improved on
// the best: its Elo against the best network it played, with the match's 95 % interval (game pairs),
// green when the interval lies above 0, red when below, grey when it contains 0; filled when the
// gate promoted it, a ring when it kept the best. Infinite ends (a sweep) are drawn at the panel's edge.
func writeRatingPlotAt(dir string, ratings []Rating, gates []GateMatch, title, file, xlabel string, x func(g int) (float64, bool)) error {
	type baseline struct {
		name string
		elo  float64
	}
	var bases []baseline
	kept := map[int]bool{} // generations the gate did not promote
	for _, gm := range gates {
		kept[gm.Gen] = !gm.Promoted
	}
	var promoted, rejected ratingPoints
	elo := map[int]float64{} // rated generations' Elo
	last := 0.0
	for _, r := range ratings {
		var g int
		if n, _ := fmt.Sscanf(r.Player, "gen-%04d", &g); n == 1 && len(r.Player) == len(GenName(g)) {
			gx, ok := x(g)
			if !r.Elo.finite() || !ok {
				continue
			}
			elo[g] = r.Elo.Value
			pts := &promoted
			if kept[g] {
				pts = &rejected
			}
			pts.add(gx, r.Elo.Value, r.Elo.Value-r.Elo.Low, r.Elo.High-r.Elo.Value)
			last = max(last, gx)
		} else if !math.IsInf(r.Elo.Value, 0) {
			bases = append(bases, baseline{r.Player, r.Elo.Value})
		}
	}
	if len(promoted.xy)+len(rejected.xy) == 0 {
		return nil
	}
	p := plot.New()
	if len(gates) == 0 {
		p.Title.Text = title
	}
	p.Y.Label.Text = "Elo"
	p.Add(plotter.NewGrid())
	all := promoted.merge(rejected)
	line, err := plotter.NewLine(all.xy)
	if err != nil {
		return err
	}
	line.Color = color.Gray{Y: 190}
	p.Add(line)
	for _, s := range []struct {
		pts    ratingPoints
		name   string
		filled bool
	}{{promoted, "promoted", true}, {rejected, "kept out by the gate", false}} {
		if len(s.pts.xy) == 0 {
			continue
		}
		sc, bars, err := s.pts.draw(plotutil.Color(2), s.filled)
		if err != nil {
			return err
		}
		p.Add(sc, bars)
		name := s.name
		if len(gates) == 0 {
			name = "generations"
		}
		p.Legend.Add(name, sc)
	}
	if len(gates) > 0 { // the best network's rating after each generation's gate
		var best plotter.XYs
		cur, gens := 0, make([]int, 0, len(elo))
		for g := range elo {
			gens = append(gens, g)
		}
		sort.Ints(gens)
		for _, g := range gens {
			if !kept[g] {
				cur = g
			}
			if e, ok := elo[cur]; ok {
				gx, _ := x(g)
				best = append(best, plotter.XY{X: gx, Y: e})
			}
		}
		if len(best) > 0 {
			l, err := plotter.NewLine(best)
			if err != nil {
				return err
			}
			l.StepStyle = plotter.PostStep
			l.Color, l.Width = plotutil.Color(1), vg.Points(1.5)
			p.Add(l)
			p.Legend.Add("best network", l)
		}
	}
	for i, b := range bases {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: b.elo}, {X: max(last, 1), Y: b.elo}})
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i + 3)
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(b.name, l)
	}
	// headroom above the highest bar or line for the legend, which sits top left
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, pt := range all.xy {
		lo, hi = min(lo, pt.Y-all.e[i].Low), max(hi, pt.Y+all.e[i].High)
	}
	for _, b := range bases {
		lo, hi = min(lo, b.elo), max(hi, b.elo)
	}
	entries := len(bases) + 2
	if len(gates) > 0 {
		entries += 2
	}
	if hi > lo {
		p.Y.Min, p.Y.Max = lo-0.05*(hi-lo), hi+0.08*(hi-lo)*float64(entries)
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(6), -vg.Points(4)
	path := filepath.Join(dir, plotsDir, file)
	if len(gates) == 0 {
		p.X.Label.Text = xlabel
		p.Title.Padding = vg.Points(8)
		return SavePNG(p, 7*vg.Inch, 4.5*vg.Inch, path)
	}
	q, err := gatePanel(gates, x, xlabel)
	if err != nil {
		return err
	}
	// both panels share the x range
	p.X.Min, p.X.Max = min(p.X.Min, q.X.Min), max(p.X.Max, q.X.Max)
	q.X.Min, q.X.Max = p.X.Min, p.X.Max
	w, h := 7*vg.Inch, 8*vg.Inch
	img := vgimg.New(w, h)
	dc := draw.New(img)
	drawFigureTitle(dc, w, h, title)
	area := draw.Crop(dc, 0, 0, 0, -vg.Inch*0.55)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: vg.Millimeter * 6, PadTop: vg.Millimeter,
		PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	plots := [][]*plot.Plot{{p}, {q}}
	cs := plot.Align(plots, tiles, area)
	p.Draw(cs[0][0])
	q.Draw(cs[1][0])
	return writePNG(path, img.Image())
}

// gatePanel is rating.png's lower panel (see writeRatingPlotAt).
func gatePanel(gates []GateMatch, x func(g int) (float64, bool), xlabel string) (*plot.Plot, error) {
	q := plot.New()
	q.Title.Text = "Each gated generation against the best it played: Elo, 95% interval\n(filled: promoted; ring: the best kept)"
	q.X.Label.Text, q.Y.Label.Text = xlabel, "Elo vs the best"
	q.Add(plotter.NewGrid())
	// the y range: the finite values and ends, at most ±800
	lim := 100.0
	for _, gm := range gates {
		for _, v := range []float64{gm.Elo.Value, gm.Elo.Low, gm.Elo.High} {
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				lim = max(lim, math.Abs(v)*1.1)
			}
		}
	}
	lim = min(lim, 800)
	classes := []struct {
		improved int
		name     string
		c        color.Color
	}{
		{1, "interval above 0 (improved)", color.RGBA{R: 0x1a, G: 0x98, B: 0x50, A: 0xff}},
		{0, "interval contains 0 (not separated)", color.Gray{Y: 120}},
		{-1, "interval below 0 (weaker)", color.RGBA{R: 0xd7, G: 0x30, B: 0x27, A: 0xff}},
	}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, cl := range classes {
		for _, promotedSet := range []bool{true, false} {
			var pts ratingPoints
			for _, gm := range gates {
				gx, ok := x(gm.Gen)
				if !ok || gm.Improved() != cl.improved || gm.Promoted != promotedSet {
					continue
				}
				v := clampElo(gm.Elo.Value, lim)
				pts.add(gx, v, v-clampElo(gm.Elo.Low, lim), clampElo(gm.Elo.High, lim)-v)
				xmin, xmax = min(xmin, gx), max(xmax, gx)
			}
			if len(pts.xy) == 0 {
				continue
			}
			sc, bars, err := pts.draw(cl.c, promotedSet)
			if err != nil {
				return nil, err
			}
			q.Add(sc, bars)
			name := cl.name
			if !promotedSet {
				name += ", best kept"
			}
			q.Legend.Add(name, sc)
		}
	}
	if xmax >= xmin {
		zero, err := plotter.NewLine(plotter.XYs{{X: min(xmin, 0), Y: 0}, {X: max(xmax, 1), Y: 0}})
		if err != nil {
			return nil, err
		}
		zero.Color = color.Gray{Y: 60}
		zero.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		q.Add(zero)
	}
	q.Y.Min, q.Y.Max = -lim, lim*1.6 // headroom for the legend, top left
	q.X.Tick.Marker, q.Y.Tick.Marker = niceTicks{}, niceTicks{}
	q.Legend.Top, q.Legend.Left = true, true
	q.Legend.XOffs, q.Legend.YOffs = vg.Points(6), -vg.Points(4)
	return q, nil
}

// clampElo bounds x to [-lim, lim] for drawing (a sweep's infinite end at the panel's edge).
func clampElo(x, lim float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return math.Max(-lim, math.Min(lim, x))
}

// ratingPoints are points with asymmetric vertical error bars.
type ratingPoints struct {
	xy plotter.XYs
	e  plotter.YErrors
}

func (r *ratingPoints) add(x, y, below, above float64) {
	r.xy = append(r.xy, plotter.XY{X: x, Y: y})
	r.e = append(r.e, struct{ Low, High float64 }{below, above})
}

// merge returns r's and o's points together, sorted by x.
func (r ratingPoints) merge(o ratingPoints) ratingPoints {
	m := ratingPoints{append(append(plotter.XYs{}, r.xy...), o.xy...), append(append(plotter.YErrors{}, r.e...), o.e...)}
	sort.Sort(byX{m.xy, m.e})
	return m
}

// draw makes the points (filled circles, or rings) and their error bars in colour c.
func (r ratingPoints) draw(c color.Color, filled bool) (*plotter.Scatter, *plotter.YErrorBars, error) {
	sc, err := plotter.NewScatter(r.xy)
	if err != nil {
		return nil, nil, err
	}
	sc.Color, sc.Radius = c, vg.Points(3)
	sc.Shape = draw.CircleGlyph{}
	if !filled {
		sc.Shape = draw.RingGlyph{}
	}
	bars, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{r.xy, r.e})
	if err != nil {
		return nil, nil, err
	}
	bars.Color = c
	return sc, bars, nil
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
