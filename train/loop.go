package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/yinsh-zero/yinsh/cluster"
	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/internal/atomicfile"
	"github.com/yinsh-zero/yinsh/internal/progress"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/train/stats"
)

// Run directory layout (every file written atomically or appended line by line with fsync):
//
//	config.yaml            the resolved configuration (a resumed run reads it back)
//	state.json             generations completed, best and current checkpoints, counters
//	checkpoints/gen-NNNN.ckpt   the network after generation N (gen-0000: the initial network;
//	                       optimiser state only in the latest's and the gate's best's: checkpoints.keep_optimizer)
//	best.ckpt              the best-rated generation's network (weights only)
//	games/shard-*.yz       self-play games (datasets shards)
//	metrics.jsonl          one line per generation (see Metrics)
//	results.jsonl          every evaluation match (yinsh ratings reads it)
//	plots/*.png            losses, rating and game length per generation
const (
	ConfigFile  = "config.yaml"
	StateFile   = "state.json"
	MetricsFile = "metrics.jsonl"
	gamesDir    = "games"
	ckptDir     = "checkpoints"
	plotsDir    = "plots"
)

// State is what a run has completed; it is rewritten atomically at the end of every generation.
type State struct {
	Format         int    `json:"format"`               // StateFormat (0: written before the field existed)
	Generation     int    `json:"generation"`           // generations completed
	Best           string `json:"best"`                 // checkpoint of the best network (relative path)
	Current        string `json:"current"`              // checkpoint of the latest trained network
	Step           int64  `json:"step"`                 // optimiser steps taken
	Games          int    `json:"games"`                // self-play games played
	Reanalysed     int    `json:"reanalysed,omitempty"` // reanalysed copies of games recorded (config reanalyse)
	SamplesTrained int64  `json:"samples_trained"`      // positions used in training steps
	// WindowUses is the file (relative path) of the replay window's draw counts after the last
	// completed generation ("" before the first).
	WindowUses string `json:"window_uses,omitempty"`

	// The run manifest (format 2, see manifest.go): what the committed run's files are.
	Config      *ConfigRecord      `json:"config,omitempty"`
	Checkpoints []CheckpointRecord `json:"checkpoints"`
	Shards      []ShardRecord      `json:"shards"`
	UsesSum     string             `json:"window_uses_sha256,omitempty"`
	Metrics     *LogRecord         `json:"metrics,omitempty"`
	Results     *LogRecord         `json:"results,omitempty"`
	Checksum    string             `json:"checksum,omitempty"` // sha256 of the state with this field empty
}

// Options configures Train.
type Options struct {
	Dir     string
	Config  Config
	Backend Backend
	Resume  bool
	// Init, for a new run, is a checkpoint (e.g. from yinsh fit) that becomes gen-0000 instead of a
	// freshly initialised network; its architecture must be the config's.
	Init     string
	Out      io.Writer // one summary line per generation
	Progress io.Writer // progress bars or lines (usually stderr)
	Log      *slog.Logger
	// StartServer starts the embedded nats-server of cluster.server = embedded (cmd/yinsh passes
	// natsserver.Starter: train links the NATS client, not the server). Nil: such a run is refused.
	StartServer cluster.StartServerFunc
}

// GenName names generation g's network.
func GenName(g int) string { return fmt.Sprintf("gen-%04d", g) }

func ckptPath(g int) string { return filepath.Join(ckptDir, GenName(g)+".ckpt") }

// Train runs the loop: for each generation, self-play with the best network, train the current
// network on the replay window, save it, evaluate it against the best (promote by the gate) and
// against the baselines, record metrics and plots. A killed run resumes with Resume: completed
// generations are kept, the self-play games already recorded for the generation in flight count, and
// the generation is otherwise redone.
func Train(ctx context.Context, o Options) error {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	cfg := &o.Config
	st, err := openRun(o)
	if err != nil {
		return err
	}
	if st == nil { // a finished run: openRun said so
		return nil
	}
	arch, err := cfg.Architecture()
	if err != nil {
		return err
	}
	if st.Current == "" {
		net, err := initialNet(ctx, o, arch)
		if err != nil {
			return err
		}
		if err := net.SetOptimizer(cfg.Training.Optimizer); err != nil {
			net.Close()
			return err
		}
		scale := cfg.Net.OutputInitScale
		if o.Init != "" || len(cfg.Pretrain.Data) > 0 || cfg.Pretrain.Expert.Games > 0 {
			scale = 1 // a fitted network keeps its output layers
		}
		err = writeInitial(net, filepath.Join(o.Dir, ckptPath(0)), scale, runOrigin(o, 0))
		net.Close()
		if err != nil {
			return err
		}
		st.Best, st.Current = ckptPath(0), ckptPath(0)
		if err := writeState(o.Dir, cfg, st); err != nil {
			return err
		}
	}
	current, err := o.Backend.Load(filepath.Join(o.Dir, st.Current))
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	defer func() { current.Close() }()
	if err := current.SetOptimizer(cfg.Training.Optimizer); err != nil {
		return err
	}
	best, err := o.Backend.Load(filepath.Join(o.Dir, st.Best))
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	defer func() { best.Close() }()

	window, err := datasets.NewWindow(datasets.WindowOptions{
		MaxPositions: cfg.Training.WindowPositions, MaxReuse: cfg.Training.MaxReuse, Logger: o.Log,
		ValueQMix: cfg.Training.ValueQMix,
	})
	if err != nil {
		return err
	}
	gdir := filepath.Join(o.Dir, gamesDir)
	writer, err := datasets.NewWriter(gdir, datasets.WriterOptions{GamesPerShard: max(cfg.SelfPlay.Games, 1), Recover: true, Logger: o.Log})
	if err != nil {
		return err
	}
	if err := writer.Close(); err != nil { // finalises recovered shards before they are loaded
		return err
	}
	if _, err := window.LoadDir(gdir); err != nil { // logs the shards, games and positions it loaded
		return err
	}
	if st.WindowUses != "" {
		if err := loadUses(o.Dir, st.WindowUses, window, o.Log); err != nil {
			return err
		}
	}

	src, err := openSource(ctx, o, gdir)
	if err != nil {
		return err
	}
	defer src.Close()
	resumed := st.Generation + 1 // the generation a killed run may have left games of
	for g := resumed; g <= cfg.Generations; g++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		m := Metrics{Generation: g, Time: time.Now().UTC().Format(time.RFC3339)}
		genStart := time.Now()

		// 1. self-play with the best network (in this process, or by cluster workers); the games
		// of g already recorded (a resumed run: only the generation in flight when it was killed
		// can have any) count and are not played again
		writer, err := datasets.NewWriter(gdir, datasets.WriterOptions{GamesPerShard: max(cfg.SelfPlay.Games/4, 1), Logger: o.Log})
		if err != nil {
			return err
		}
		sps, err := src.Games(ctx, GenPlay{Generation: g, Resumed: g == resumed, Best: best, BestPath: st.Best, Writer: writer, Window: window})
		if cerr := writer.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("generation %d self-play: %w", g, err)
		}
		st.Games += sps.Games
		m.SelfPlay = selfPlayMetrics(sps)
		m.Recovered = sps.Games > 0 && sps.Recovered == sps.Games

		// 1b. Reanalyse: earlier self-play games searched again by the best network
		if cfg.Reanalyse.Games > 0 {
			if m.Reanalyse, err = reanalysePhase(ctx, o, best, gdir, window, g); err != nil {
				return fmt.Errorf("generation %d reanalyse: %w", g, err)
			}
			if m.Reanalyse != nil {
				st.Reanalysed += m.Reanalyse.Games
			}
		}

		// 2. training on the replay window
		tm, err := trainPhase(ctx, o, current, window, g)
		if err != nil {
			return fmt.Errorf("generation %d training: %w", g, err)
		}
		m.Train = tm
		st.SamplesTrained += int64(tm.Steps * cfg.Training.BatchSize)
		st.Step = current.Step()
		cand := ckptPath(g)
		fault("checkpoint.before")
		if err := model.SaveNet(current, filepath.Join(o.Dir, cand), runOrigin(o, g)); err != nil {
			return err
		}
		fault("checkpoint.after")

		// 3. evaluation: candidate against the best, then against the baselines; a candidate that
		// did not train is the network evaluated before (or the initial one): nothing to learn
		em, promote := EvalMetrics{Skipped: true}, false
		if tm.Steps > 0 {
			em, promote, err = evaluatePhase(ctx, o, current, best, g, st.Best)
			if err != nil {
				return fmt.Errorf("generation %d evaluation: %w", g, err)
			}
		} else {
			o.Log.Info("evaluation skipped: no training step ran this generation", "generation", g)
		}
		m.Eval = em
		if promote {
			nb, err := o.Backend.Load(filepath.Join(o.Dir, cand))
			if err != nil {
				return err
			}
			best.Close()
			best = nb
			st.Best = cand
		}
		st.Current = cand
		m.Best = GenName(bestGen(st.Best))
		if ratings, anchor, err := runRatings(o.Dir); err == nil {
			m.Ratings, m.RatingAnchor = map[string]float64{}, anchor
			for _, r := range ratings {
				m.Ratings[r.Player] = r.Elo.Value
				if r.Player == GenName(g) && r.Elo.finite() {
					e := r.Elo
					m.Elo = &e
				}
			}
		} else {
			o.Log.Debug("no ratings yet", "err", err)
		}
		m.Elapsed = time.Since(genStart).Seconds()
		st.Generation = g
		if st.WindowUses, err = saveUses(o.Dir, g, window); err != nil {
			return err
		}
		fault("uses.after")
		if err := AppendMetrics(filepath.Join(o.Dir, MetricsFile), m); err != nil {
			return err
		}
		fault("metrics.after")
		if err := writeState(o.Dir, cfg, st); err != nil {
			return err
		}
		fault("state.after")
		if _, err := keepCheckpoints(o, st, m.Ratings); err != nil {
			return err
		}
		pruneUses(o.Dir, g)
		if err := WritePlots(o.Dir); err != nil {
			o.Log.Warn("plots not written", "err", err)
		}
		fmt.Fprintln(o.Out, m.Summary(cfg.Generations))
	}
	if err := src.Finish(ctx); err != nil {
		return err
	}
	fmt.Fprint(o.Out, ClosingSummary(o.Dir, cfg))
	return nil
}

func bestGen(path string) int {
	g, _ := ParseCheckpointName(filepath.Base(path))
	return g
}

// openRun creates the run directory (refusing to reuse one without Resume) or verifies and reads a
// resumed run's state: a run directory that disagrees with its state.json, or a config change that
// would mix incompatible data, is refused before anything is written. A finished run is reported on
// o.Out and gives a nil state.
func openRun(o Options) (*State, error) {
	cfgPath := filepath.Join(o.Dir, ConfigFile)
	_, statErr := os.Lstat(filepath.Join(o.Dir, StateFile))
	exists := statErr == nil
	if !o.Resume && exists {
		return nil, fmt.Errorf("run directory %s already holds a run: pass --resume to continue it, or choose another --run", o.Dir)
	}
	if !o.Resume && !exists {
		// a generation's work (a run killed before its first state.json has only gen-0000)
		f := ckptPath(1)
		if _, err := os.Lstat(filepath.Join(o.Dir, f)); err == nil {
			return nil, fmt.Errorf("run directory %s holds a run's %s but no %s: refused rather than overwriting it (restore state.json, or choose another --run)", o.Dir, f, StateFile)
		}
	}
	if o.Resume && !exists {
		return nil, fmt.Errorf("--resume: %s has no %s (not a run directory, or the run never finished its first step)", o.Dir, StateFile)
	}
	st := &State{Format: StateFormat}
	if exists {
		chk := VerifyRun(o.Dir)
		if err := chk.Err(); err != nil {
			return nil, err
		}
		st = chk.State
		changes, err := checkResumeConfig(o, chk.Config)
		if err != nil {
			return nil, err
		}
		if st.Generation >= o.Config.Generations {
			fmt.Fprintf(o.Out, "run %s is finished (%d generations of %d): nothing to do; raise generations with --set generations=%d (or more) to continue\n",
				o.Dir, st.Generation, o.Config.Generations, st.Generation+1)
			return nil, nil
		}
		o.Log.Info("resuming", "dir", o.Dir, "generations_done", st.Generation, "best", st.Best, "step", st.Step, "state_format", st.Format)
		if err := recordConfigChanges(o, st, changes); err != nil {
			return nil, err
		}
		if err := cleanTemps(o.Dir, o.Log); err != nil {
			return nil, err
		}
		if err := dropUnfinished(o.Dir, st); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{o.Dir, filepath.Join(o.Dir, ckptDir), filepath.Join(o.Dir, gamesDir), filepath.Join(o.Dir, plotsDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	y, err := o.Config.YAML()
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(cfgPath, y); err != nil {
		return nil, err
	}
	return st, nil
}

// dropUnfinished removes from metrics.jsonl and results.jsonl what a killed run wrote for the
// generation in flight (after the last completed one), so the redone generation is not counted twice:
// with a manifest, everything after the committed prefix; before format 2, the lines of later
// generations.
func dropUnfinished(dir string, st *State) error {
	if st.Format >= 2 {
		for _, f := range []struct {
			name string
			rec  *LogRecord
		}{{MetricsFile, st.Metrics}, {ResultsFileName, st.Results}} {
			path := filepath.Join(dir, f.name)
			data, err := os.ReadFile(path)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return err
			}
			if int64(len(data)) > f.rec.Bytes { // VerifyRun checked the prefix
				if err := atomicfile.WriteFile(path, data[:f.rec.Bytes]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	done := st.Generation
	mpath := filepath.Join(dir, MetricsFile)
	if ms, err := ReadMetrics(mpath); err == nil {
		var keep []byte
		for _, m := range ms {
			if m.Generation <= done {
				line, _ := json.Marshal(m)
				keep = append(append(keep, line...), '\n')
			}
		}
		if err := atomicfile.WriteFile(mpath, keep); err != nil {
			return err
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	rpath := filepath.Join(dir, ResultsFileName)
	if _, err := os.Stat(rpath); err != nil {
		return nil
	}
	rs, err := ReadResults(dir)
	if err != nil {
		return err
	}
	var keep []byte
	for _, r := range rs {
		var g int
		if n, _ := fmt.Sscanf(r.A, "gen-%04d", &g); n == 1 && g > done {
			continue
		}
		line, _ := json.Marshal(r)
		keep = append(append(keep, line...), '\n')
	}
	return atomicfile.WriteFile(rpath, keep)
}

// writeState commits the run: the manifest of the files as they are now (written before), then
// state.json, atomically.
func writeState(dir string, cfg *Config, st *State) error {
	if err := buildManifest(dir, cfg, st, st); err != nil {
		return err
	}
	fault("state.before")
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, StateFile), append(b, '\n'))
}

// trainPhase runs the generation's optimiser steps on batches sampled from the window.
func trainPhase(ctx context.Context, o Options, net model.Net, w *datasets.Window, g int) (TrainMetrics, error) {
	cfg := &o.Config.Training
	tm := TrainMetrics{TargetSteps: cfg.StepsPerGeneration, StoppedBy: "steps"}
	if w.Len() < cfg.MinPositions {
		o.Log.Info("training skipped: window too small", "positions", w.Len(), "min_positions", cfg.MinPositions)
		tm.StoppedBy = "min_positions"
		return tm, nil
	}
	rng := rand.New(rand.NewPCG(o.Config.Seed, uint64(g)*0x9e3779b97f4a7c15))
	var db datasets.Batch
	var bar *progress.Bar
	if o.Progress != nil {
		bar = progress.New(o.Progress, cfg.StepsPerGeneration, "training", 15*time.Second)
	}
	start := time.Now()
	var sum model.Loss
	for s := 0; s < cfg.StepsPerGeneration; s++ {
		if err := ctx.Err(); err != nil {
			return tm, err
		}
		if err := w.Sample(rng, cfg.BatchSize, &db); err != nil {
			if errors.Is(err, datasets.ErrExhausted) {
				o.Log.Debug("training stopped early: every position reached max_reuse", "steps", s)
				tm.StoppedBy = "max_reuse"
				break
			}
			return tm, err
		}
		loss, err := net.TrainStep(&db)
		if err != nil {
			return tm, err
		}
		tm.Steps++
		fault("train.step")
		sum.Policy += loss.Policy
		sum.Value += loss.Value
		sum.Total += loss.Total
		sum.L2 += loss.L2
		bar.Add(1, fmt.Sprintf("loss %.3f (policy %.3f value %.3f weight decay %.3f) lr %.2g", loss.Total, loss.Policy, loss.Value, loss.L2, net.LearningRate()))
	}
	bar.Finish() // at the steps run
	if tm.StoppedBy == "max_reuse" && o.Progress != nil {
		fmt.Fprintf(o.Progress, "training: steps %d/%d (max_reuse: every position in the window was drawn %d times)\n",
			tm.Steps, cfg.StepsPerGeneration, cfg.MaxReuse)
	}
	el := time.Since(start).Seconds()
	if tm.Steps > 0 {
		n := float64(tm.Steps)
		tm.LossPolicy, tm.LossValue, tm.LossTotal, tm.LossL2 = sum.Policy/n, sum.Value/n, sum.Total/n, sum.L2/n
		tm.SamplesPerSec = float64(tm.Steps*cfg.BatchSize) / el
	}
	tm.LR = net.LearningRate()
	tm.Window = w.Len()
	tm.Seconds = el
	return tm, nil
}

// evaluatePhase plays the candidate against the best network (gating), against earlier generations
// (the ladder) and against the baselines, every match a sequence of game pairs from random openings,
// appending each match to results.jsonl.
func evaluatePhase(ctx context.Context, o Options, cand, best model.Net, g int, bestPath string) (EvalMetrics, bool, error) {
	ec := &o.Config.Evaluation
	var em EvalMetrics
	variant := o.Config.VariantValue()
	popts := selfplay.PlayerOptions{Search: selfplay.Search{Sims: ec.Simulations, SimsSet: true, Gumbel: o.Config.SelfPlay.Gumbel,
		RolloutMix: float32(ec.RolloutMix), MoveTime: time.Duration(ec.MoveTimeMS) * time.Millisecond}, Variant: variant, Load: o.Backend.Load}
	sc := selfplay.SearchConfig(ec.Simulations, o.Config.SelfPlay.Gumbel)
	sc.MoveTime = popts.MoveTime
	netPlayers := func(name string, net model.Net) (*selfplay.NetPlayers, error) {
		return selfplay.NewNetPlayers(name, net.Predict, sc, 64, popts.RolloutMix)
	}
	cp, err := netPlayers(GenName(g), cand)
	if err != nil {
		return em, false, err
	}
	defer cp.Close()
	results := filepath.Join(o.Dir, ResultsFileName)
	seed := o.Config.Seed + uint64(g)*7919
	match := func(b selfplay.PlayerFactory, bname string, games int, seed uint64, stop func(selfplay.MatchResult) bool) (selfplay.MatchResult, error) {
		var bar *progress.Bar
		if o.Progress != nil {
			bar = progress.New(o.Progress, games, "eval "+GenName(g)+" vs "+bname, 15*time.Second)
		}
		res, err := selfplay.Match(ctx, cp.Factory(), b, selfplay.MatchOptions{
			Games: games, Parallel: ec.Parallel, Seed: seed, Variant: variant, OpeningPlies: ec.OpeningPlies, Stop: stop,
			OnGame: func(_ int, r selfplay.MatchResult, _ selfplay.GameRecord) error {
				fault("eval.game")
				bar.Add(1, fmt.Sprintf("+%d =%d -%d", r.Wins, r.Draws, r.Losses))
				return nil
			},
		})
		bar.Finish()
		if err != nil {
			return res, err
		}
		r := ResultOf(res, GenName(g), bname)
		r.Sims, r.MoveTimeMS = ec.Simulations, ec.MoveTimeMS
		return res, AppendResult(results, r)
	}
	// matchNet plays the candidate against generation h's network (the best's when h is bestGen).
	matchNet := func(h, games int, seed uint64, stop func(selfplay.MatchResult) bool) (selfplay.MatchResult, error) {
		net := best
		if h != bestGen(bestPath) {
			n, err := o.Backend.Load(filepath.Join(o.Dir, ckptPath(h)))
			if err != nil {
				return selfplay.MatchResult{}, err
			}
			defer n.Close()
			net = n
		}
		np, err := netPlayers(GenName(h), net)
		if err != nil {
			return selfplay.MatchResult{}, err
		}
		defer np.Close()
		return match(np.Factory(), GenName(h), games, seed, stop)
	}
	promote := true
	if ec.Games > 0 {
		var stop func(selfplay.MatchResult) bool
		sprt := &SPRTStopper{Elo1: ec.SPRTElo1}
		if ec.Gate == "sprt" { // a sequential test: the match ends once it decides, evaluation.games its most
			stop = sprt.Stop
		}
		bg := bestGen(bestPath)
		res, err := matchNet(bg, ec.Games, seed, stop)
		if err != nil {
			return em, false, err
		}
		em.VsBest, em.BestGames, em.Best = res.Score(), res.Games(), GenName(bg)
		switch ec.Gate {
		case "score":
			promote = res.Score() >= ec.GateScore
			em.Verdict = map[bool]string{true: "pass", false: "fail"}[promote]
		case "sprt":
			v := sprt.Final(res)
			promote, em.Verdict = v == stats.AcceptH1, string(v)
		}
	}
	em.Promoted = promote
	played := map[int]bool{}
	if ec.Games > 0 {
		played[bestGen(bestPath)] = true
	}
	if !rated(g, o.Config.Generations, ec.Every) {
		return em, promote, nil
	}
	type rung struct{ gen, games int }
	var rungs []rung
	for _, k := range ec.Ladder {
		rungs = append(rungs, rung{ladderGen(g, k, ec.Every), ec.LadderGames})
	}
	if ec.AnchorGames > 0 {
		rungs = append(rungs, rung{0, ec.AnchorGames})
	}
	for i, r := range rungs {
		h := r.gen
		if h < 0 || played[h] || r.games == 0 {
			continue
		}
		played[h] = true
		res, err := matchNet(h, r.games, seed+uint64(i+1)*15485863, nil)
		if err != nil {
			return em, promote, err
		}
		if em.Ladder == nil {
			em.Ladder = map[string]float64{}
		}
		em.Ladder[GenName(h)] = res.Score()
	}
	em.Baselines = map[string]float64{}
	for i, b := range ec.Baselines {
		if ec.BaselineGames == 0 {
			break
		}
		f, closer, err := selfplay.OpenPlayer(b, popts)
		if err != nil {
			return em, promote, err
		}
		res, err := match(f, b, ec.BaselineGames, seed+uint64(i+1)*104729, nil)
		if cerr := closer.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("baseline %s: %w", b, cerr)
		}
		if err != nil {
			return em, promote, err
		}
		em.Baselines[b] = res.Score()
	}
	return em, promote, nil
}

// rated reports whether generation g of a run of last generations plays its ladder, anchor and
// baseline matches under evaluation.every: every generation for every ≤ 1, else the multiples
// of every and the last.
func rated(g, last, every int) bool {
	return every <= 1 || g%every == 0 || g == last
}

// ladderGen is the generation that ladder offset k names for generation g: k generations back,
// or under evaluation.every > 1 the k-th rated generation back (a last generation off the
// multiples counts from the next multiple: with every 8, generation 20's offsets 1 and 2 are 16
// and 8). Negative: before gen-0000 (skipped).
func ladderGen(g, k, every int) int {
	if every <= 1 {
		return g - k
	}
	return (g+every-1)/every*every - k*every
}

// outputLayers are the tensors that OutputInitScale shrinks: the policy logits' and the value
// WDL logits' final fully connected layers.
var outputLayers = []string{"policy.fc", "value.fc2"}

// writeInitial writes the freshly initialised network as the run's first checkpoint, with the output
// layers' weights multiplied by scale and their biases zeroed (scale 1 keeps the backend's
// initialisation as it is). Backends draw output layers like hidden ones, N(0, 1/fan_in), which makes
// a fresh policy peaked on arbitrary moves (0.37 on one of 55 legal moves): a prior that misleads the
// first generations' searches. A small scale starts the network near the uniform policy and an even
// WDL, so the first self-play searches rely on their simulations. Done on the checkpoint, so it is
// the same for every backend.
func writeInitial(net model.Net, path string, scale float64, origin model.Origin) error {
	if scale == 1 {
		return model.SaveNet(net, path, origin)
	}
	ck, err := net.Checkpoint()
	if err != nil {
		return err
	}
	ck = ck.Clone() // a backend may share its parameters with the checkpoint
	for _, l := range outputLayers {
		w, b := ck.Tensors[l+".weight"], ck.Tensors[l+".bias"]
		if w == nil || b == nil {
			return fmt.Errorf("net.output_init_scale: checkpoint has no %s.weight/bias", l)
		}
		for i := range w.Data {
			w.Data[i] *= float32(scale)
		}
		clear(b.Data)
	}
	ck.Meta.SetOrigin(origin)
	return model.WriteCheckpoint(path, ck)
}

// runOrigin is what the run's checkpoint of generation g records about itself: the variant, the
// run (its directory's name) and the generation.
func runOrigin(o Options, g int) model.Origin {
	return model.Origin{Variant: o.Config.VariantValue(), RunID: filepath.Base(filepath.Clean(o.Dir)), Generation: g}
}
