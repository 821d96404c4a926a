package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/train"
)

// BenchSelfplayOptions configures `yinsh bench selfplay`.
type BenchSelfplayOptions struct {
	Out io.Writer
	BackendFlags
	Net      string
	Variant  string
	Sims     int
	Games    int
	Parallel int
	Batch    int
	Window   int           // positions of random games held in a replay window during the run (memory check)
	Time     time.Duration // raw inference measurement
	Duration time.Duration // stop self-play after this long (0: play every game)
}

func newCmdBenchSelfplay() *cobra.Command {
	opts := &BenchSelfplayOptions{}
	cmd := &cobra.Command{
		Use:   "selfplay [--net tiny|small] [--sims N] [--games N] [--parallel P] [--batch B]",
		Short: "Measure self-play against the network's raw batched inference, in one run",
		Long: `Measure self-play end to end against the backend's raw inference at the same batch size, in the
same process: raw Predict calls of --batch positions (before and after self-play; the better figure
counts), and --games self-play games (--parallel at once, leaves batched up to --batch). Prints raw-positions/s, selfplay-positions/s, their ratio
(search and batching overhead), games/hour, mean batch, and peak RSS; --window N also holds N
positions of random games in a replay window during the run, as training would.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Out = cmd.OutOrStdout()
			return benchSelfplayRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	opts.BackendFlags.add(f)
	f.StringVar(&opts.Net, "net", "tiny", "network preset or YAML file")
	f.StringVar(&opts.Variant, "variant", "standard", "rules variant: standard or blitz")
	f.IntVar(&opts.Sims, "sims", 64, "simulations per search")
	f.IntVar(&opts.Games, "games", 64, "self-play games")
	f.IntVar(&opts.Parallel, "parallel", 64, "games at once")
	f.IntVar(&opts.Batch, "batch", 32, "network batch size")
	f.DurationVar(&opts.Time, "time", 3*time.Second, "how long to measure raw inference")
	f.DurationVar(&opts.Duration, "duration", 0, "stop self-play after this long and report the rates so far (0: play every game)")
	f.IntVar(&opts.Window, "window", 0, "positions of random games to hold in a replay window (memory check)")
	return cmd
}

func benchSelfplayRun(ctx context.Context, o *BenchSelfplayOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Sims < 1 || o.Games < 1 || o.Parallel < 1 || o.Batch < 1 || o.Window < 0 {
		return fmt.Errorf("--sims, --games, --parallel and --batch must be at least 1, --window at least 0")
	}
	arch, err := model.ResolveConfig(o.Net)
	if err != nil {
		return err
	}
	be, err := o.backend()
	if err != nil {
		return err
	}
	net, err := be.New(arch, 1)
	if err != nil {
		return err
	}
	defer net.Close()
	cfg := train.DefaultConfig()
	cfg.Variant, cfg.Backend, cfg.Device = o.Variant, be.Name, o.Device
	cfg.SelfPlay.Simulations, cfg.SelfPlay.Parallel, cfg.SelfPlay.BatchSize = o.Sims, o.Parallel, o.Batch
	cfg.SelfPlay.Games = o.Games
	if err := cfg.Validate(); err != nil {
		return err
	}
	var window *datasets.Window
	if o.Window > 0 {
		if window, err = fillWindow(o.Window, cfg.VariantValue()); err != nil {
			return err
		}
	}
	// raw batched inference on positions from random games
	rng := rand.New(rand.NewPCG(1, 2))
	planes := make([]float32, o.Batch*env.ObservationSize)
	mask := make([]bool, o.Batch*env.NumActions)
	for i := 0; i < o.Batch; i++ {
		s := env.NewState(cfg.VariantValue())
		for k := 10 + rng.IntN(30); k > 0 && !s.IsTerminal(); k-- {
			l := s.LegalActions(nil)
			_ = s.ApplyAction(l[rng.IntN(len(l))])
		}
		s.Observation(planes[i*env.ObservationSize:])
		s.LegalMask(mask[i*env.NumActions : (i+1)*env.NumActions])
	}
	pol := make([]float32, o.Batch*env.NumActions)
	wdl := make([]float32, o.Batch*3)
	if err := net.Predict(o.Batch, planes, mask, pol, wdl); err != nil {
		return err
	}
	measureRaw := func() (float64, error) {
		calls := 0
		start := time.Now()
		for time.Since(start) < o.Time {
			if err := net.Predict(o.Batch, planes, mask, pol, wdl); err != nil {
				return 0, err
			}
			calls++
		}
		return float64(calls*o.Batch) / time.Since(start).Seconds(), nil
	}
	rawBefore, err := measureRaw()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "yinsh-bench-selfplay-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	w, err := datasets.NewWriter(dir, datasets.WriterOptions{GamesPerShard: 1 << 20})
	if err != nil {
		return err
	}
	spCtx := ctx
	if o.Duration > 0 {
		var cancel context.CancelFunc
		spCtx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	st, err := train.PlaySelfPlay(spCtx, train.SelfPlayOptions{Config: &cfg, Net: net, Generator: "bench", Games: o.Games, Seed: 1, Writer: w})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil && !(o.Duration > 0 && errors.Is(err, context.DeadlineExceeded)) {
		return err
	}
	// raw inference is measured before and after self-play and the better figure is the reference,
	// so that a burst of load from other processes during one measurement cannot flatter the ratio
	rawAfter, err := measureRaw()
	if err != nil {
		return err
	}
	raw := max(rawBefore, rawAfter)
	sp := float64(st.Evaluations) / st.Elapsed.Seconds()
	fmt.Fprintf(o.Out, "raw-positions/s: %.1f\n", raw)
	fmt.Fprintf(o.Out, "selfplay-positions/s: %.1f\n", sp)
	fmt.Fprintf(o.Out, "ratio: %.3f\n", sp/raw)
	fmt.Fprintf(o.Out, "games: %d\n", st.Games)
	if st.Games > 0 {
		fmt.Fprintf(o.Out, "games/hour: %.1f\n", st.GamesPerHour())
		fmt.Fprintf(o.Out, "actions/game: %.1f\n", float64(st.Positions)/float64(st.Games))
	}
	fmt.Fprintf(o.Out, "searches/s: %.1f\n", float64(st.Searches)/st.Elapsed.Seconds())
	fmt.Fprintf(o.Out, "mean-batch: %.2f\n", st.MeanBatch)
	if window != nil {
		fmt.Fprintf(o.Out, "window-positions: %d\nwindow-bytes: %d\n", window.Len(), window.Bytes())
	}
	fmt.Fprintf(o.Out, "peak-rss-mib: %.1f\n", peakRSSMiB())
	return nil
}

// fillWindow holds n positions of random games with uniform policy targets.
func fillWindow(n int, v env.Variant) (*datasets.Window, error) {
	w, err := datasets.NewWindow(datasets.WindowOptions{MaxPositions: n})
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for id := uint64(0); w.Len() < n; id++ {
		s := env.NewState(v)
		rec := &datasets.Record{ID: id, Variant: v, Generator: "random"}
		for !s.IsTerminal() {
			l := s.LegalActions(nil)
			t := datasets.Target{Policy: make([]datasets.PolicyEntry, len(l))}
			for j, a := range l {
				t.Policy[j] = datasets.PolicyEntry{Action: uint16(a), Prob: 1 / float32(len(l))}
			}
			a := l[rng.IntN(len(l))]
			rec.Actions = append(rec.Actions, a)
			rec.Targets = append(rec.Targets, t)
			_ = s.ApplyAction(a)
		}
		rec.Outcome = s.Outcome()
		if err := w.Add(rec); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// peakRSSMiB returns the process's peak resident set size (VmHWM), or 0 where /proc is missing.
func peakRSSMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
