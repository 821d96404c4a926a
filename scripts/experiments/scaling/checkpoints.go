package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/yinsh-zero/yinsh/train"
)

// checkpointsOptions configures checkpoints.
type checkpointsOptions struct {
	Run, Net, Prefix string
	Budgets          []float64 // in Unit
	Unit             string    // minutes | games
	// PretrainMinutes is the wall time of the expert games and the fit (< 0: from the run's
	// files: gen 1's start in metrics.jsonl minus config.yaml's modification time).
	PretrainMinutes float64
	Out, Err        io.Writer
}

// budgetPoint is one run checkpoint and the compute it had cost.
type budgetPoint struct {
	Gen     int
	Compute float64
}

// cumulative returns, for every generation in ms, the compute spent when it ended: minutes
// (pretrain plus the generations' elapsed_s, which include their evaluation) or self-play games.
func cumulative(ms []train.Metrics, unit string, pretrainMinutes float64) []budgetPoint {
	var out []budgetPoint
	c := 0.0
	if unit == "minutes" {
		c = pretrainMinutes
	}
	for _, m := range ms {
		if unit == "minutes" {
			c += m.Elapsed / 60
		} else {
			c += float64(m.SelfPlay.Games)
		}
		out = append(out, budgetPoint{m.Generation, c})
	}
	return out
}

// pick returns, for each budget, the first generation whose cumulative compute reaches it (ok
// false when the run has not reached it yet).
func pick(pts []budgetPoint, budget float64) (budgetPoint, bool) {
	for _, p := range pts {
		if p.Compute >= budget-1e-9 {
			return p, true
		}
	}
	return budgetPoint{}, false
}

// checkpointsRun prints pool lines for a run's checkpoints at the budgets.
func checkpointsRun(o *checkpointsOptions) error {
	ms, err := train.ReadMetrics(filepath.Join(o.Run, train.MetricsFile))
	if err != nil {
		return err
	}
	if len(ms) == 0 {
		return fmt.Errorf("%s: no generation finished yet", o.Run)
	}
	pre := o.PretrainMinutes
	if o.Unit == "minutes" && pre < 0 {
		if pre, err = pretrainMinutes(o.Run, ms[0]); err != nil {
			return err
		}
		fmt.Fprintf(o.Err, "checkpoints: %s: pretrain took %.1f minutes (gen 1's start minus config.yaml's time; -pretrain-minutes overrides)\n", o.Run, pre)
	}
	pts := cumulative(ms, o.Unit, pre)
	abs, err := filepath.Abs(o.Run)
	if err != nil {
		return err
	}
	var lines []string // all budgets checked before any line is printed
	for _, b := range o.Budgets {
		p, ok := pick(pts, b)
		if !ok {
			last := pts[len(pts)-1]
			return fmt.Errorf("%s: budget %g %s not reached: the run is at %.1f %s after gen %d (train longer: yinsh train --resume --set generations=N)",
				o.Run, b, o.Unit, last.Compute, o.Unit, last.Gen)
		}
		ck := filepath.Join(abs, "checkpoints", train.GenName(p.Gen)+".ckpt")
		lines = append(lines, fmt.Sprintf("%s%s %s %.4g %s\n", o.Prefix, strconv.FormatFloat(b, 'g', -1, 64), o.Net, p.Compute, ck))
	}
	for _, l := range lines {
		fmt.Fprint(o.Out, l)
	}
	return nil
}

// pretrainMinutes is the time from the run's start (config.yaml written) to generation 1's start.
func pretrainMinutes(run string, first train.Metrics) (float64, error) {
	st, err := os.Stat(filepath.Join(run, "config.yaml"))
	if err != nil {
		return 0, fmt.Errorf("%s: %w (give -pretrain-minutes)", run, err)
	}
	t, err := time.Parse(time.RFC3339, first.Time)
	if err != nil || first.Generation != 1 {
		return 0, fmt.Errorf("%s: metrics.jsonl does not start with generation 1's time (give -pretrain-minutes)", run)
	}
	d := t.Sub(st.ModTime()).Minutes()
	if d < 0 || math.IsNaN(d) {
		return 0, fmt.Errorf("%s: config.yaml is newer than generation 1 (a resumed run?): give -pretrain-minutes", run)
	}
	return d, nil
}

// parseBudgets parses "25,60,150".
func parseBudgets(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		b, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(b > 0) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("-at %q: want positive numbers separated by commas", s)
		}
		out = append(out, b)
	}
	return out, nil
}
