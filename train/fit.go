package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/progress"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
)

// Supervised fitting: a network trained on recorded games (expert games of `yinsh datasets
// generate`, imported boardspace games, a run's self-play shards) by epochs, with a held-out split
// of whole games, the warm start of expert iteration. Every position with a policy target is an
// example: the policy target is the expert's visit distribution (one-hot for imported games), the
// value target the game's outcome mixed with the expert's root value by ValueQMix, as in training.

// FitOptions configures Fit.
type FitOptions struct {
	Records []*datasets.Record // the games (finished ones; their variant must be Variant)
	Variant env.Variant
	Net     model.Net // the network to fit (new or loaded); Fit trains it in place
	// Epochs is the most passes over the training split; Patience stops early after this many
	// epochs without a lower held-out loss (0: never stop early).
	Epochs, Patience int
	BatchSize        int
	// HoldOut is the share of games (drawn by a hash of the game id and Seed) kept out of training
	// to measure the fit; 0 measures on the training split only.
	HoldOut   float64
	ValueQMix float64
	Seed      uint64
	// Save, if set, is called with the network whenever the held-out loss (the training loss
	// without a held-out split) reaches a new low: the checkpoint to keep is the best epoch's.
	Save func(model.Net, FitEpoch) error
	// OnEpoch, if set, receives every epoch's report.
	OnEpoch  func(FitEpoch) error
	Out      io.Writer // one line per epoch
	Progress io.Writer // progress bars (nil: none)
	Log      *slog.Logger
}

// FitSplit is a network's loss on one split, every position measured once (inference mode).
type FitSplit struct {
	Positions int     `json:"positions"`
	Policy    float64 `json:"loss_policy"` // cross-entropy against the policy target (nats)
	Value     float64 `json:"loss_value"`  // cross-entropy against the WDL target (nats)
	// Top1 is the share of positions whose most probable legal action is the target's most
	// probable action (agreement with the expert).
	Top1 float64 `json:"top1"`
}

// FitEpoch is one epoch's report.
type FitEpoch struct {
	Epoch   int      `json:"epoch"`
	Steps   int      `json:"steps"`
	LR      float64  `json:"lr"`
	Train   FitSplit `json:"train"`   // measured on up to as many training positions as held out
	HeldOut FitSplit `json:"heldout"` // zero Positions without a held-out split
	Best    bool     `json:"best"`    // the lowest held-out loss so far (the one Save received)
	Seconds float64  `json:"seconds"`
}

// loss is the split's total loss as the optimiser weighs it (without L2).
func (s FitSplit) loss(valueWeight float64) float64 { return s.Policy + valueWeight*s.Value }

// FitResult summarises a fit.
type FitResult struct {
	Epochs        []FitEpoch
	Best          int // epoch of the best held-out loss (0: before the first epoch)
	TrainGames    int
	HeldOutGames  int
	TrainExamples int
	HeldExamples  int
	StoppedEarly  bool
}

// String is the one-line report of an epoch.
func (e FitEpoch) String() string {
	s := fmt.Sprintf("epoch %d: %d steps lr %.2g; train policy %.3f value %.3f top-1 %.3f", e.Epoch, e.Steps, e.LR,
		e.Train.Policy, e.Train.Value, e.Train.Top1)
	if e.HeldOut.Positions > 0 {
		s += fmt.Sprintf("; held-out policy %.3f value %.3f top-1 %.3f", e.HeldOut.Policy, e.HeldOut.Value, e.HeldOut.Top1)
	}
	if e.Best {
		s += " (best)"
	}
	return s + fmt.Sprintf(" [%.0fs]", e.Seconds)
}

// Fit trains o.Net on the records epoch by epoch (each epoch draws every training position once,
// in a random order under a random board symmetry) and measures both splits after each.
func Fit(ctx context.Context, o FitOptions) (FitResult, error) {
	var res FitResult
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	switch {
	case o.Epochs < 1:
		return res, fmt.Errorf("fit: epochs %d, want at least 1", o.Epochs)
	case o.BatchSize < 1:
		return res, fmt.Errorf("fit: batch size %d, want at least 1", o.BatchSize)
	case !(o.HoldOut >= 0 && o.HoldOut < 1):
		return res, fmt.Errorf("fit: held-out share %v, want 0 ≤ share < 1", o.HoldOut)
	case o.Patience < 0:
		return res, fmt.Errorf("fit: patience %d, want ≥ 0", o.Patience)
	}
	var train, held []*datasets.Record
	for _, r := range o.Records {
		if r.Outcome == env.Ongoing || r.TrainingTargets() == 0 {
			continue
		}
		if r.Variant != o.Variant {
			return res, fmt.Errorf("fit: game %d is %s, the fit is for %s", r.ID, r.Variant, o.Variant)
		}
		if float64(mix64(r.ID^o.Seed^0x686f6c646f7574)>>11)/(1<<53) < o.HoldOut { // "holdout"
			held = append(held, r)
		} else {
			train = append(train, r)
		}
	}
	res.TrainGames, res.HeldOutGames = len(train), len(held)
	for _, r := range train {
		res.TrainExamples += r.TrainingTargets()
	}
	for _, r := range held {
		res.HeldExamples += r.TrainingTargets()
	}
	if res.TrainExamples < o.BatchSize {
		return res, fmt.Errorf("fit: %d training positions (%d games), fewer than one batch of %d", res.TrainExamples, len(train), o.BatchSize)
	}
	if o.HoldOut > 0 && len(held) == 0 {
		return res, fmt.Errorf("fit: no game fell into the held-out share %v of %d games (more games, or --holdout 0)", o.HoldOut, len(train))
	}
	o.Log.Info("fit: data", "train_games", len(train), "train_positions", res.TrainExamples,
		"heldout_games", len(held), "heldout_positions", res.HeldExamples)

	// the training positions measured each epoch: a fixed sample of games about the size of the
	// held-out split, so both splits' figures cost the same and compare
	probe := train
	if n := max(res.HeldExamples, 2000); res.TrainExamples > n {
		probe = nil
		rng := rand.New(rand.NewPCG(o.Seed, 0x70726f6265)) // "probe"
		perm := rng.Perm(len(train))
		for k, pos := 0, 0; k < len(perm) && pos < n; k++ {
			probe = append(probe, train[perm[k]])
			pos += train[perm[k]].TrainingTargets()
		}
	}
	measure := func(recs []*datasets.Record) (FitSplit, error) {
		return measureSplit(o.Net, recs, o.BatchSize, o.ValueQMix, o.Seed)
	}
	vw := o.Net.Optimizer().ValueWeight
	best := math.Inf(1)
	sinceBest := 0
	for e := 1; e <= o.Epochs; e++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		start := time.Now()
		w, err := datasets.NewWindow(datasets.WindowOptions{MaxReuse: 1, ValueQMix: o.ValueQMix, Logger: o.Log})
		if err != nil {
			return res, err
		}
		for _, r := range train {
			if err := w.Add(r); err != nil {
				return res, fmt.Errorf("fit: %w", err)
			}
		}
		rng := rand.New(rand.NewPCG(o.Seed, uint64(e)))
		var bar *progress.Bar
		if o.Progress != nil {
			bar = progress.New(o.Progress, res.TrainExamples/o.BatchSize, fmt.Sprintf("epoch %d/%d", e, o.Epochs), 15*time.Second)
		}
		ep := FitEpoch{Epoch: e}
		var db datasets.Batch
		for {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			if err := w.Sample(rng, o.BatchSize, &db); err != nil {
				if errors.Is(err, datasets.ErrExhausted) {
					break // the epoch's positions are used (a last partial batch is left out)
				}
				return res, err
			}
			loss, err := o.Net.TrainStep(&db)
			if err != nil {
				return res, err
			}
			ep.Steps++
			bar.Add(1, fmt.Sprintf("loss %.3f (policy %.3f value %.3f)", loss.Total, loss.Policy, loss.Value))
		}
		bar.Finish()
		ep.LR = o.Net.LearningRate()
		if ep.Train, err = measure(probe); err != nil {
			return res, err
		}
		score := ep.Train.loss(vw)
		if len(held) > 0 {
			if ep.HeldOut, err = measure(held); err != nil {
				return res, err
			}
			score = ep.HeldOut.loss(vw)
		}
		if score < best {
			best, sinceBest, ep.Best, res.Best = score, 0, true, e
			if o.Save != nil {
				if err := o.Save(o.Net, ep); err != nil {
					return res, err
				}
			}
		} else {
			sinceBest++
		}
		ep.Seconds = time.Since(start).Seconds()
		res.Epochs = append(res.Epochs, ep)
		fmt.Fprintln(o.Out, ep)
		if o.OnEpoch != nil {
			if err := o.OnEpoch(ep); err != nil {
				return res, err
			}
		}
		if o.Patience > 0 && sinceBest >= o.Patience && e < o.Epochs {
			res.StoppedEarly = true
			o.Log.Info("fit: stopped early", "epoch", e, "best_epoch", res.Best, "patience", o.Patience)
			break
		}
	}
	return res, nil
}

// measureSplit returns the network's losses and top-1 agreement on every training position of recs
// (each once, under a symmetry drawn from seed), in inference mode.
func measureSplit(net model.Net, recs []*datasets.Record, batch int, qmix float64, seed uint64) (FitSplit, error) {
	var s FitSplit
	w, err := datasets.NewWindow(datasets.WindowOptions{MaxReuse: 1, ValueQMix: qmix, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return s, err
	}
	for _, r := range recs {
		if err := w.Add(r); err != nil {
			return s, fmt.Errorf("fit: %w", err)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d656173757265)) // "measure"
	var db datasets.Batch
	var pol, wdl []float32
	for w.Eligible() > 0 {
		n := min(batch, w.Eligible())
		if err := w.Sample(rng, n, &db); err != nil {
			return s, err
		}
		pol, wdl = grow(pol, n*env.NumActions), grow(wdl, n*model.NumWDL)
		if err := net.Predict(n, db.Planes, db.Mask, pol, wdl); err != nil {
			return s, err
		}
		for i := 0; i < n; i++ {
			p, t := pol[i*env.NumActions:(i+1)*env.NumActions], db.Policy[i*env.NumActions:(i+1)*env.NumActions]
			s.Policy += crossEntropy(p, t)
			s.Value += crossEntropy(wdl[i*3:i*3+3], db.WDL[i*3:i*3+3])
			if argmax(p) == argmax(t) {
				s.Top1++
			}
		}
		s.Positions += n
	}
	if s.Positions > 0 {
		n := float64(s.Positions)
		s.Policy, s.Value, s.Top1 = s.Policy/n, s.Value/n, s.Top1/n
	}
	return s, nil
}

func grow(b []float32, n int) []float32 {
	if cap(b) < n {
		return make([]float32, n)
	}
	return b[:n]
}

// crossEntropy is −Σ target·log softmax(logits) over the finite logits (−Inf: masked out).
func crossEntropy(logits, target []float32) float64 {
	m := math.Inf(-1)
	for _, l := range logits {
		m = math.Max(m, float64(l))
	}
	var z float64
	for _, l := range logits {
		if !math.IsInf(float64(l), -1) {
			z += math.Exp(float64(l) - m)
		}
	}
	lse := m + math.Log(z)
	var ce float64
	for i, t := range target {
		if t > 0 {
			ce -= float64(t) * (float64(logits[i]) - lse)
		}
	}
	return ce
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// ReadGames reads the games of every shard directory in dirs, for a fit; a directory without
// shards is an error, which names it after label (the flag or config key that gave it).
func ReadGames(label string, dirs []string) ([]*datasets.Record, error) {
	var recs []*datasets.Record
	for _, d := range dirs {
		rs, err := datasets.ReadDir(d)
		if err == nil && len(rs) == 0 {
			err = errors.New("no game-record shards there")
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", label, d, err)
		}
		recs = append(recs, rs...)
	}
	return recs, nil
}

// PretrainFile is the run directory's record of the pretrain fit, one JSON line per epoch (FitEpoch);
// pretrain.ckpt next to it is the best epoch's network, which gen-0000 copies.
const PretrainFile = "pretrain.jsonl"

// initialNet returns a new run's gen-0000: the --init checkpoint, a network fitted to the
// pretrain data, or a fresh network.
func initialNet(ctx context.Context, o Options, arch model.Config) (model.Net, error) {
	cfg := &o.Config
	if o.Init != "" {
		h, err := model.ReadMetadata(o.Init)
		if err != nil {
			return nil, fmt.Errorf("--init: %w", err)
		}
		if v, ok := h.Meta.VariantValue(); ok && v != cfg.VariantValue() {
			return nil, fmt.Errorf("--init %s was trained for %s, the run is %s", o.Init, v, cfg.VariantValue())
		}
		if !sameArch(h.Meta.Net, arch) {
			return nil, fmt.Errorf("--init %s has architecture %s, the config's net is %s (set net.* to match)", o.Init, archText(h.Meta.Net), archText(arch))
		}
		return o.Backend.Load(o.Init)
	}
	p := &cfg.Pretrain
	data := p.Data
	if p.Expert.Games > 0 {
		dir, err := playExpertGames(ctx, o)
		if err != nil {
			return nil, err
		}
		data = append([]string{dir}, data...)
	}
	net, err := o.Backend.New(arch, cfg.Seed)
	if err != nil || len(data) == 0 {
		return net, err
	}
	recs, err := ReadGames("pretrain.data", data)
	if err != nil {
		net.Close()
		return nil, err
	}
	oc := model.DefaultAdamW()
	oc.Schedule.LR = p.LR
	if err := net.SetOptimizer(oc); err != nil {
		net.Close()
		return nil, err
	}
	best := filepath.Join(o.Dir, "pretrain.ckpt")
	os.Remove(filepath.Join(o.Dir, PretrainFile)) // a pretrain killed before gen-0000 existed starts over
	fmt.Fprintf(o.Out, "pretrain: fitting gen-0000 to %d games of %v\n", len(recs), data)
	res, err := Fit(ctx, FitOptions{
		Records: recs, Variant: cfg.VariantValue(), Net: net, Epochs: p.Epochs, Patience: p.Patience,
		BatchSize: p.BatchSize, HoldOut: p.HoldOut, ValueQMix: cfg.Training.ValueQMix, Seed: cfg.Seed,
		Out: o.Out, Progress: o.Progress, Log: o.Log,
		Save:    func(n model.Net, _ FitEpoch) error { return model.SaveNet(n, best, runOrigin(o, 0)) },
		OnEpoch: func(e FitEpoch) error { return appendJSONLine(filepath.Join(o.Dir, PretrainFile), e) },
	})
	net.Close()
	if err != nil {
		return nil, fmt.Errorf("pretrain: %w", err)
	}
	if res.Best == 0 {
		return nil, errors.New("pretrain: no epoch reached a finite loss (lower pretrain.lr)")
	}
	return o.Backend.Load(best)
}

func archText(c model.Config) string {
	s := fmt.Sprintf("%d blocks × %d channels, policy %d, value %d×%d", c.Blocks, c.Channels, c.PolicyChannels, c.ValueChannels, c.ValueHidden)
	if c.GlobalPool {
		s += ", global pooling"
	}
	if c.ScoreHead {
		s += ", score head"
	}
	return s
}

// ExpertDir is the run directory's folder of pretrain expert games.
const ExpertDir = "expert"

// playExpertGames plays pretrain.expert's games into RUN/expert (those not recorded yet: a run
// killed while generating continues where it stopped) and returns the directory.
func playExpertGames(ctx context.Context, o Options) (string, error) {
	cfg := &o.Config
	e := &cfg.Pretrain.Expert
	dir := filepath.Join(o.Dir, ExpertDir)
	popts := selfplay.PlayerOptions{Search: selfplay.Search{Sims: e.Sims}, Variant: cfg.VariantValue(), Load: o.Backend.Load}
	fa, ca, err := selfplay.OpenPlayer(e.Player, popts)
	if err != nil {
		return "", fmt.Errorf("pretrain.expert.player: %w", err)
	}
	defer ca.Close()
	fb, vs := fa, e.Vs
	if vs == "" {
		vs = e.Player
	}
	if vs != e.Player {
		var cb io.Closer
		if fb, cb, err = selfplay.OpenPlayer(vs, popts); err != nil {
			return "", fmt.Errorf("pretrain.expert.vs: %w", err)
		}
		defer cb.Close()
	}
	w, err := datasets.NewWriter(dir, datasets.WriterOptions{Recover: true, GamesPerShard: max(e.Games/8, 100), Logger: o.Log})
	if err != nil {
		return "", err
	}
	recorded, err := datasets.RecordedIDs(dir)
	if err != nil {
		w.Close()
		return "", err
	}
	parallel := e.Parallel
	if parallel == 0 {
		parallel = runtime.NumCPU()
	}
	var bar *progress.Bar
	if o.Progress != nil {
		bar = progress.New(o.Progress, e.Games, "expert games", 15*time.Second)
		bar.Add(min(len(recorded), e.Games), "")
	}
	st, err := selfplay.PlayExpert(ctx, fa, fb, selfplay.ExpertOptions{
		Games: e.Games, Parallel: parallel, Seed: cfg.Seed, Variant: cfg.VariantValue(), OpeningPlies: e.OpeningPlies,
		Generator: "expert:" + e.Player + "-vs-" + vs, Recorded: func(id uint64) bool { return recorded[id] },
		OnGame: func(g selfplay.ExpertGame) error {
			bar.Add(1, "")
			return w.Append(g.Record)
		},
	})
	bar.Finish()
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("pretrain.expert: %w", err)
	}
	fmt.Fprintf(o.Out, "pretrain: %d expert games played (%d already recorded), %.0f games/hour, %.1f targets a game\n",
		st.Games, st.Skipped, st.GamesPerHour(), float64(st.Targets)/float64(max(st.Games, 1)))
	return dir, nil
}

// sameArch reports whether two architectures have the same tensors (names aside).
func sameArch(a, b model.Config) bool {
	a.Name, b.Name = "", ""
	return a == b
}
