// Package train is the AlphaZero loop: generations of self-play → training → evaluation → promotion,
// with its configuration, ratings (Elo), metrics, plots and resume.
package train

import (
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/yinsh-zero/yinsh/cluster"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/loopback"
	"github.com/yinsh-zero/yinsh/model"
)

// Config is a training run's configuration; configs/*.yaml document every field. Decoding rejects
// unknown keys and Validate range-checks every field, naming it by its YAML path.
type Config struct {
	Variant     string `yaml:"variant"`     // standard | blitz
	Seed        uint64 `yaml:"seed"`        // seeds self-play, training batches and evaluation
	Generations int    `yaml:"generations"` // generations to run (self-play → train → evaluate)
	Backend     string `yaml:"backend"`     // gonum (pure Go) | torch (build tag torch)
	Device      string `yaml:"device"`      // cpu | cuda | cuda:N (torch only)
	Threads     int    `yaml:"threads"`     // cores (yinsh train sets GOMAXPROCS with gonum; torch threads); 0: all

	Net        NetConfig        `yaml:"net"`
	SelfPlay   SelfPlayConfig   `yaml:"selfplay"`
	Training   TrainingConfig   `yaml:"training"`
	Evaluation EvaluationConfig `yaml:"evaluation"`
	Pretrain   PretrainConfig   `yaml:"pretrain"`
	// Checkpoints is what the run keeps of its generations' checkpoints.
	Checkpoints CheckpointsConfig `yaml:"checkpoints"`
	// Cluster, with a server, takes the self-play games from workers over NATS JetStream instead
	// of playing them in this process (absent: the single-process loop).
	Cluster ClusterConfig `yaml:"cluster,omitempty"`
	// Reanalyse, with games > 0, re-searches earlier generations' self-play games with the best
	// network every generation (absent: off).
	Reanalyse ReanalyseConfig `yaml:"reanalyse,omitempty"`
}

// ReanalyseConfig is Reanalyse (MuZero Reanalyse, Schrittwieser et al. 2021): after each
// generation's self-play, Games self-play games drawn from the Generations generations before it
// are replayed and every training position searched again by the best network (the self-play
// search: simulations, Gumbel, rollout mix), and the copies with the fresh policy targets and root
// values go into the run's games and the replay window as new games (generator
// "reanalyse:gen-NNNN"), each position drawable max_reuse times again. A reanalysed game costs about
// what playing it cost; it buys fresher targets for recorded positions instead of new positions.
type ReanalyseConfig struct {
	Games       int `yaml:"games"`       // self-play games re-searched per generation (0: off)
	Generations int `yaml:"generations"` // drawn uniformly from the self-play games of this many generations back (1: the previous one)
}

// IsZero reports Reanalyse off (so the resolved config of a run without it does not mention it).
func (r ReanalyseConfig) IsZero() bool { return r.Games == 0 }

// CheckpointsConfig is the retention of checkpoints/gen-NNNN.ckpt.
type CheckpointsConfig struct {
	// KeepOptimizer is whose optimiser state is kept: "latest_and_best" (the latest checkpoint's,
	// which --resume trains on, and the best network's, the gate's; every other generation is
	// rewritten as weights only, a third of the size) or "all".
	KeepOptimizer string `yaml:"keep_optimizer"`
}

// KeepOptimizer values.
const (
	KeepLatestAndBest = "latest_and_best"
	KeepAll           = "all"
)

// ClusterConfig is distributed self-play (docs/distributed.md): workers, in this process or on
// other machines (yinsh worker), play the games and publish them; the trainer ingests them.
type ClusterConfig struct {
	// Server is embedded (a nats-server inside yinsh train, its file store in RUN/nats) or the URL
	// of a nats-server with JetStream (nats://host:4222); "" turns the cluster off.
	Server string `yaml:"server"`
	// Listen is the embedded server's host:port (default 127.0.0.1:4222, loopback: only this
	// machine; any other address needs worker_creds).
	Listen string `yaml:"listen"`
	// Run names the run on the server (default: the run directory's base name).
	Run string `yaml:"run"`
	// LocalWorkers are workers inside this process (0: only remote ones play).
	LocalWorkers int `yaml:"local_workers"`
	// WorkerParallel is the games at once of each local worker (0: selfplay.parallel).
	WorkerParallel int `yaml:"worker_parallel"`
	// Staleness: a game played by a network at most this many generations older than the
	// generation being filled is used; older ones are dropped and counted.
	Staleness int `yaml:"staleness"`
	// AckWaitS is how many seconds a game fetched by the trainer may stay unacknowledged before
	// the server redelivers it (after a trainer crash); 0: 30.
	AckWaitS int `yaml:"ack_wait_s"`
	// MaxBacklog bounds the games waiting in the stream (0: 10 generations' games): beyond it
	// workers wait (their publishes are refused and retried) until the trainer catches up.
	MaxBacklog int `yaml:"max_backlog"`
	// Replicas is how many servers of an external NATS cluster keep the run's stream and buckets
	// (0: 1; 3 survives the loss of any one server). The embedded server is one server.
	Replicas int `yaml:"replicas"`
	// Creds is the trainer's credentials file for an external server (see yinsh worker --creds).
	Creds string `yaml:"creds"`
	// WorkerCreds is the credentials file workers present to the embedded server (token, user and
	// password, or an nkey seed); required when listen is not loopback.
	WorkerCreds string      `yaml:"worker_creds"`
	TLS         cluster.TLS `yaml:"tls"`
}

// IsZero reports an absent cluster section (so the resolved config of a single-process run does
// not mention it).
func (c ClusterConfig) IsZero() bool { return c.Server == "" }

// Enabled reports whether self-play games come from cluster workers.
func (c ClusterConfig) Enabled() bool { return c.Server != "" }

// PretrainConfig fits a new run's gen-0000 to recorded games before its first generation (the warm
// start of expert iteration: expert games from yinsh datasets generate, imported boardspace games),
// as yinsh fit does; without data, gen-0000 is a fresh network. Only a new run reads it.
type PretrainConfig struct {
	Data      []string `yaml:"data"`       // directories of game-record shards (relative to the working directory)
	Epochs    int      `yaml:"epochs"`     // most passes over the training positions
	Patience  int      `yaml:"patience"`   // stop after this many epochs without a lower held-out loss (0: never)
	BatchSize int      `yaml:"batch_size"` // positions per optimiser step
	HoldOut   float64  `yaml:"holdout"`    // share of games kept out to measure the fit (and pick the best epoch)
	LR        float64  `yaml:"lr"`         // AdamW learning rate of the fit (constant)
	// Expert, with Games > 0, first plays expert games into RUN/expert (yinsh datasets generate's
	// games: the search's visit distribution as policy target), which the fit then uses with Data.
	Expert ExpertConfig `yaml:"expert"`
}

// ExpertConfig is the expert-game generation of a pretrain.
type ExpertConfig struct {
	Player       string `yaml:"player"`        // the expert: rollout:N, a checkpoint, ...
	Vs           string `yaml:"vs"`            // its opponent ("": the same player)
	Games        int    `yaml:"games"`         // games to play (0: none)
	Sims         int    `yaml:"sims"`          // checkpoint players' simulations (rollout:N uses N)
	OpeningPlies int    `yaml:"opening_plies"` // random ring placements opening each pair of games
	Parallel     int    `yaml:"parallel"`      // games at once (0: one per core)
}

// NetConfig picks the architecture: a preset, optionally with fields overridden.
type NetConfig struct {
	Preset         string `yaml:"preset"`          // tiny | small
	Channels       int    `yaml:"channels"`        // 0: the preset's
	Blocks         int    `yaml:"blocks"`          // -1: the preset's (0 is a valid tower of no blocks)
	PolicyChannels int    `yaml:"policy_channels"` // 0: the preset's
	ValueChannels  int    `yaml:"value_channels"`  // 0: the preset's
	ValueHidden    int    `yaml:"value_hidden"`    // 0: the preset's
	GlobalPool     bool   `yaml:"global_pool"`     // KataGo-style global pooling biases (model.Config.GlobalPool)
	ScoreHead      bool   `yaml:"score_head"`      // auxiliary final-score head (model.Config.ScoreHead; training.optimizer.score_weight)
	// OutputInitScale multiplies the initial weights of the policy and value output layers (their
	// biases are zeroed) in a new run's gen-0000: near 0 starts with an almost uniform policy and an
	// even value, instead of the backend's random, peaked one. 1 keeps the backend's initialisation.
	OutputInitScale float64 `yaml:"output_init_scale"`
}

// SelfPlayConfig is the self-play phase of a generation.
//
// Four search settings are fixed, not keys (Config.SelfPlaySettings keeps mcts.DefaultConfig's
// values; configs/*.yaml say so too): the root's first-play-urgency reduction 0.1 (PUCT only:
// fpu_reduction is the one below the root), the virtual loss 1 that each of a tree's in-flight
// leaves counts for (PUCT only: Gumbel selection counts them as visits), the Gumbel noise scale 1
// (self-play always samples Gumbel-top-k's noise; evaluation games use 0) and Gumbel's c_visit 50
// (σ(q̂) = (50 + max visits)·gumbel_c_scale·q̂, mctx's maxvisit_init). Under Gumbel, c_puct,
// fpu_reduction and the Dirichlet noise are unused: the root is searched by sequential halving and
// the interior by the improved policy.
type SelfPlayConfig struct {
	Games            int     `yaml:"games"`             // games per generation
	Parallel         int     `yaml:"parallel"`          // games played at once (one search tree each)
	BatchSize        int     `yaml:"batch_size"`        // leaves per network call (batching evaluator)
	Simulations      int     `yaml:"simulations"`       // simulations per full search
	FastSimulations  int     `yaml:"fast_simulations"`  // playout-cap randomisation: fast search budget (0: off)
	FullFraction     float64 `yaml:"full_fraction"`     // share of searches that are full (training targets)
	Gumbel           bool    `yaml:"gumbel"`            // Gumbel AlphaZero root search (else PUCT + Dirichlet noise)
	GumbelConsidered int     `yaml:"gumbel_considered"` // Gumbel-top-k: root actions considered
	GumbelCScale     float64 `yaml:"gumbel_c_scale"`    // Gumbel: weight of the rescaled completed Q in the improved-policy target
	// RootValue is the search value recorded for each position (the q of value_q_mix's target, the
	// recorded WDL) and tested for resignation: "visits", the visit-weighted mean of the root's
	// children (the default), or "improved", the Gumbel improved policy's value Σ π′·q̂ (Gumbel only;
	// sequential halving spreads visits flat on purpose, so the visit mean leans towards the average
	// considered action).
	RootValue string `yaml:"root_value"`
	// GumbelSigmaNewVisits: σ's visit scale (c_visit + max N) at the root counts only the current
	// search's visits, not those reused from the previous action's tree (Gumbel with tree_reuse).
	GumbelSigmaNewVisits bool    `yaml:"gumbel_sigma_new_visits"`
	CPUCT                float64 `yaml:"c_puct"`             // PUCT exploration constant (PUCT only)
	FPUReduction         float64 `yaml:"fpu_reduction"`      // first-play-urgency reduction below the root (PUCT only; the root's is fixed at 0.1)
	DirichletAlpha       float64 `yaml:"dirichlet_alpha"`    // root noise concentration (PUCT only)
	DirichletFraction    float64 `yaml:"dirichlet_fraction"` // root noise weight (PUCT only)
	// TemperatureActions: the first actions of a game are sampled at temperature τ, later ones are
	// greedy. PUCT samples visits^(1/τ); Gumbel samples its improved policy^(1/τ) instead of playing
	// the sequential-halving winner, on top of Gumbel-top-k's own noise (0: that noise is the only
	// exploration, the default and every shipped config's choice).
	TemperatureActions  int     `yaml:"temperature_actions"`
	Temperature         float64 `yaml:"temperature"`           // τ for those actions
	TreeReuse           bool    `yaml:"tree_reuse"`            // keep the subtree between actions
	ResignThreshold     float64 `yaml:"resign_threshold"`      // resign below this root value (-1: never)
	ResignConsecutive   int     `yaml:"resign_consecutive"`    // … for this many consecutive own searches
	ResignCheckFraction float64 `yaml:"resign_check_fraction"` // share of games played out to count false resignations
	RolloutMix          float64 `yaml:"rollout_mix"`           // leaf value = (1-λ)·network + λ·random rollout (AlphaGo); 0: pure AlphaZero
	RolloutPlayouts     int     `yaml:"rollout_playouts"`      // random playouts per leaf when rollout_mix > 0 (their mean is the rollout value)
	LeavesInFlight      int     `yaml:"leaves_in_flight"`      // leaves one tree sends per network call (PUCT: virtual loss keeps them apart; Gumbel: they count as visits); 1: sequential search
	// Opponents (random, heuristic, rollout:N) play one colour of a share OpponentFraction of the
	// games instead of the network's search (drawn per game); their actions are not policy targets.
	Opponents        []string `yaml:"opponents"`
	OpponentFraction float64  `yaml:"opponent_fraction"`
}

// TrainingConfig is the training phase of a generation.
type TrainingConfig struct {
	StepsPerGeneration int                   `yaml:"steps_per_generation"` // optimiser steps per generation
	BatchSize          int                   `yaml:"batch_size"`           // positions per step
	WindowPositions    int                   `yaml:"window_positions"`     // replay window: the latest positions
	MinPositions       int                   `yaml:"min_positions"`        // skip training until the window holds this many
	MaxReuse           int                   `yaml:"max_reuse"`            // times one position may be sampled (KataGo max train reuse), 1..255
	ValueQMix          float64               `yaml:"value_q_mix"`          // value target (1-m)·z + m·q: z the outcome, q the search's root value (0.5: "Lessons from AlphaZero"); 0: z alone
	Optimizer          model.OptimizerConfig `yaml:"optimizer"`
}

// EvaluationConfig is the evaluation and promotion phase.
type EvaluationConfig struct {
	Games         int      `yaml:"games"`          // candidate vs current best games (0: always promote); gate=sprt: the most, the match ending once the GSPRT decides
	Simulations   int      `yaml:"simulations"`    // simulations per move in evaluation games
	Parallel      int      `yaml:"parallel"`       // evaluation games at once
	Gate          string   `yaml:"gate"`           // none | score | sprt
	GateScore     float64  `yaml:"gate_score"`     // gate=score: promote at or above this score
	SPRTElo1      float64  `yaml:"sprt_elo1"`      // gate=sprt: H1 Elo (H0 is 0), alpha = beta = 0.05; promoted on H1, kept out on H0 or no decision
	RolloutMix    float64  `yaml:"rollout_mix"`    // the network players' leaf value mix in evaluation games (see selfplay.rollout_mix)
	Baselines     []string `yaml:"baselines"`      // players rated against each generation (random, heuristic, rollout:N, engine:"CMD")
	BaselineGames int      `yaml:"baseline_games"` // games per baseline per generation
	// Ladder lists how many generations back the earlier networks are that each new generation also
	// plays (1: the previous one; offsets reaching before gen-0000 are skipped, and the best is
	// played once), LadderGames games each: with the matches against the best and the baselines
	// they chain every generation's rating to gen-0000's.
	Ladder      []int `yaml:"ladder"`
	LadderGames int   `yaml:"ladder_games"`
	// Every, above 1, rates only every Every-th generation and the run's last: the ladder, anchor
	// and baseline matches run on those alone (the gate, evaluation.games, still runs on every
	// generation), so that the same evaluation time buys fewer, longer matches with narrower
	// intervals. Ladder offsets then count rated generations: offset k is the k-th rated
	// generation back (k·Every generations back). 0 or 1: every generation is rated.
	Every int `yaml:"every"`
	// AnchorGames is the number of games each generation also plays against gen-0000, the
	// ratings' anchor (0: none): a direct measurement of the progress since the start, where a
	// chain of short ladder matches between neighbours adds up their noise.
	AnchorGames int `yaml:"anchor_games"`
	// OpeningPlies is the number of random ring placements that open each game pair of an
	// evaluation match (both games of a pair start there, colours swapped).
	OpeningPlies int `yaml:"opening_plies"`
	// MoveTimeMS, when positive, bounds every evaluation search by this many milliseconds a move as
	// well (simulations stay the cap); 0 bounds them by simulations alone (reproducible).
	MoveTimeMS int `yaml:"movetime_ms"`
}

// DefaultConfig returns the defaults every YAML file is applied over.
func DefaultConfig() Config {
	return Config{
		Variant: "blitz", Seed: 1, Generations: 10, Backend: "gonum", Device: "cpu",
		Net: NetConfig{Preset: "tiny", Blocks: -1, OutputInitScale: 1},
		SelfPlay: SelfPlayConfig{
			Games: 64, Parallel: 32, BatchSize: 32, Simulations: 64, FastSimulations: 0, FullFraction: 1,
			Gumbel: true, GumbelConsidered: 16, GumbelCScale: 0.1, CPUCT: 1.25, FPUReduction: 0.25,
			DirichletAlpha: 0.3, DirichletFraction: 0.25, TemperatureActions: 0, Temperature: 1,
			TreeReuse: true, ResignThreshold: -1, ResignConsecutive: 3, ResignCheckFraction: 0.1,
			RootValue:      "visits",
			LeavesInFlight: 8, RolloutPlayouts: 1,
		},
		Training: TrainingConfig{
			StepsPerGeneration: 100, BatchSize: 128, WindowPositions: 50000, MinPositions: 1000, MaxReuse: 8,
			Optimizer: model.DefaultAdamW(),
		},
		Pretrain: PretrainConfig{Epochs: 10, Patience: 2, BatchSize: 256, HoldOut: 0.1, LR: 1e-3,
			Expert: ExpertConfig{Player: "rollout:200", Sims: 200, OpeningPlies: 4}},
		Evaluation: EvaluationConfig{
			Games: 20, Simulations: 64, Parallel: 8, Gate: "none", GateScore: 0.55, SPRTElo1: 30,
			Baselines: []string{"random"}, BaselineGames: 20, Ladder: []int{1, 2, 4}, LadderGames: 10,
			OpeningPlies: 4,
		},
		Checkpoints: CheckpointsConfig{KeepOptimizer: KeepLatestAndBest},
	}
}

// Validate range-checks every field; the error names the field by its YAML path.
func (c *Config) Validate() error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("%s = %v, want %s", field, v, want)
	}
	ok := func(x, lo, hi float64) bool { return x >= lo && x <= hi && !math.IsNaN(x) }
	if _, err := env.ParseVariant(c.Variant); err != nil || c.Variant == "" {
		return bad("variant", c.Variant, "standard or blitz")
	}
	if c.Backend != "gonum" && c.Backend != "torch" {
		return bad("backend", c.Backend, "gonum or torch")
	}
	if c.Device != "cpu" && c.Device != "cuda" && !strings.HasPrefix(c.Device, "cuda:") {
		return bad("device", c.Device, "cpu, cuda or cuda:N")
	}
	if c.Backend == "gonum" && c.Device != "cpu" {
		return bad("device", c.Device, "cpu with backend gonum")
	}
	sp, tr, ev := &c.SelfPlay, &c.Training, &c.Evaluation
	ints := []struct {
		name   string
		v      int
		lo, hi int
	}{
		{"generations", c.Generations, 1, 1_000_000},
		{"threads", c.Threads, 0, 1024},
		{"selfplay.games", sp.Games, 1, 10_000_000},
		{"selfplay.parallel", sp.Parallel, 1, 4096},
		{"selfplay.batch_size", sp.BatchSize, 1, 4096},
		{"selfplay.simulations", sp.Simulations, 1, 1_000_000},
		{"selfplay.fast_simulations", sp.FastSimulations, 0, 1_000_000},
		{"selfplay.gumbel_considered", sp.GumbelConsidered, 1, env.NumActions},
		{"selfplay.temperature_actions", sp.TemperatureActions, 0, 10_000},
		{"selfplay.resign_consecutive", sp.ResignConsecutive, 1, 1000},
		{"selfplay.leaves_in_flight", sp.LeavesInFlight, 1, 4096},
		{"selfplay.rollout_playouts", sp.RolloutPlayouts, 1, 1024},
		{"training.steps_per_generation", tr.StepsPerGeneration, 0, 10_000_000},
		{"training.batch_size", tr.BatchSize, 1, 65536},
		{"training.window_positions", tr.WindowPositions, 1, 100_000_000},
		{"training.min_positions", tr.MinPositions, 0, 100_000_000},
		{"training.max_reuse", tr.MaxReuse, 1, 255},
		{"evaluation.games", ev.Games, 0, 1_000_000},
		{"evaluation.simulations", ev.Simulations, 1, 1_000_000},
		{"evaluation.parallel", ev.Parallel, 1, 4096},
		{"evaluation.baseline_games", ev.BaselineGames, 0, 1_000_000},
		{"evaluation.ladder_games", ev.LadderGames, 0, 1_000_000},
		{"evaluation.anchor_games", ev.AnchorGames, 0, 1_000_000},
		{"evaluation.every", ev.Every, 0, 1_000_000},
		{"evaluation.opening_plies", ev.OpeningPlies, 0, 10},
		{"evaluation.movetime_ms", ev.MoveTimeMS, 0, 3_600_000},
		{"net.channels", c.Net.Channels, 0, 1024},
		{"net.blocks", c.Net.Blocks, -1, 128},
		{"pretrain.epochs", c.Pretrain.Epochs, 1, 100_000},
		{"pretrain.patience", c.Pretrain.Patience, 0, 100_000},
		{"pretrain.batch_size", c.Pretrain.BatchSize, 1, 65536},
		{"pretrain.expert.games", c.Pretrain.Expert.Games, 0, 10_000_000},
		{"pretrain.expert.sims", c.Pretrain.Expert.Sims, 1, 1_000_000},
		{"pretrain.expert.opening_plies", c.Pretrain.Expert.OpeningPlies, 0, 10},
		{"pretrain.expert.parallel", c.Pretrain.Expert.Parallel, 0, 4096},
		{"cluster.local_workers", c.Cluster.LocalWorkers, 0, 256},
		{"cluster.worker_parallel", c.Cluster.WorkerParallel, 0, 4096},
		{"cluster.staleness", c.Cluster.Staleness, 0, 1_000_000},
		{"cluster.ack_wait_s", c.Cluster.AckWaitS, 0, 86_400},
		{"cluster.max_backlog", c.Cluster.MaxBacklog, 0, 100_000_000},
		{"cluster.replicas", c.Cluster.Replicas, 0, 5},
	}
	for _, f := range ints {
		if f.v < f.lo || f.v > f.hi {
			return bad(f.name, f.v, fmt.Sprintf("in [%d, %d]", f.lo, f.hi))
		}
	}
	floats := []struct {
		name   string
		v      float64
		lo, hi float64
	}{
		{"selfplay.full_fraction", sp.FullFraction, 0, 1},
		{"selfplay.c_puct", sp.CPUCT, 0, 100},
		{"selfplay.fpu_reduction", sp.FPUReduction, 0, 10},
		{"selfplay.dirichlet_alpha", sp.DirichletAlpha, 1e-6, 100},
		{"selfplay.dirichlet_fraction", sp.DirichletFraction, 0, 1},
		{"selfplay.temperature", sp.Temperature, 0, 100},
		{"selfplay.resign_threshold", sp.ResignThreshold, -1, 1},
		{"selfplay.resign_check_fraction", sp.ResignCheckFraction, 0, 1},
		{"selfplay.rollout_mix", sp.RolloutMix, 0, 1},
		{"selfplay.gumbel_c_scale", sp.GumbelCScale, 1e-6, 100},
		{"selfplay.opponent_fraction", sp.OpponentFraction, 0, 1},
		{"evaluation.rollout_mix", ev.RolloutMix, 0, 1},
		{"evaluation.gate_score", ev.GateScore, 0, 1},
		{"evaluation.sprt_elo1", ev.SPRTElo1, 1, 2000},
		{"net.output_init_scale", c.Net.OutputInitScale, 0, 1},
		{"training.value_q_mix", tr.ValueQMix, 0, 1},
		{"pretrain.holdout", c.Pretrain.HoldOut, 0, 0.9},
		{"pretrain.lr", c.Pretrain.LR, 1e-9, 10},
	}
	for _, f := range floats {
		if !ok(f.v, f.lo, f.hi) {
			return bad(f.name, f.v, fmt.Sprintf("in [%g, %g]", f.lo, f.hi))
		}
	}
	if sp.FullFraction < 1 && sp.FastSimulations == 0 {
		return bad("selfplay.fast_simulations", 0, "at least 1 when selfplay.full_fraction < 1")
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"evaluation.games", ev.Games}, {"evaluation.baseline_games", ev.BaselineGames}, {"evaluation.ladder_games", ev.LadderGames}, {"evaluation.anchor_games", ev.AnchorGames}} {
		if f.v%2 != 0 {
			return bad(f.name, f.v, "an even number (games are played in pairs from one opening, colours swapped)")
		}
	}
	for i, k := range ev.Ladder {
		if k < 1 || k > 1_000_000 {
			return bad(fmt.Sprintf("evaluation.ladder[%d]", i), k, "a generation offset in [1, 1000000]")
		}
	}
	switch {
	case sp.RootValue != "visits" && sp.RootValue != "improved":
		return bad("selfplay.root_value", sp.RootValue, "visits or improved")
	case sp.RootValue == "improved" && !sp.Gumbel:
		return bad("selfplay.root_value", sp.RootValue, "visits unless selfplay.gumbel is true (PUCT's root value is its visit mean)")
	}
	if k := c.Checkpoints.KeepOptimizer; k != KeepLatestAndBest && k != KeepAll {
		return bad("checkpoints.keep_optimizer", k, "latest_and_best or all")
	}
	if ev.Gate != "none" && ev.Gate != "score" && ev.Gate != "sprt" {
		return bad("evaluation.gate", ev.Gate, "none, score or sprt")
	}
	for i, b := range ev.Baselines {
		if err := checkBaseline(b); err != nil {
			return bad(fmt.Sprintf("evaluation.baselines[%d]", i), b, err.Error())
		}
	}
	for i, b := range sp.Opponents {
		if err := checkBaseline(b); err != nil {
			return bad(fmt.Sprintf("selfplay.opponents[%d]", i), b, err.Error())
		}
	}
	if sp.OpponentFraction > 0 && len(sp.Opponents) == 0 {
		return bad("selfplay.opponents", "[]", "at least one player when selfplay.opponent_fraction > 0")
	}
	if err := c.Cluster.validate(); err != nil {
		return err
	}
	if re := c.Reanalyse; re.Games < 0 || re.Games > 100000 {
		return bad("reanalyse.games", re.Games, "0..100000")
	} else if re.Games > 0 && (re.Generations < 1 || re.Generations > 1000) {
		return bad("reanalyse.generations", re.Generations, "1..1000 when reanalyse.games > 0")
	}
	if _, err := c.Architecture(); err != nil {
		return err
	}
	if err := tr.Optimizer.Validate(); err != nil {
		return fmt.Errorf("training.optimizer: %w", err)
	}
	return nil
}

// checkBaseline accepts the baseline players random, heuristic, rollout:N and engine:"CMD"; its error
// says what is wanted.
func checkBaseline(b string) error {
	if strings.HasPrefix(b, "engine:") && len(b) > len("engine:") {
		return nil
	}
	if b != "random" && b != "heuristic" && !strings.HasPrefix(b, "rollout:") {
		return errors.New(`random, heuristic, rollout:N or engine:"CMD ARGS"`)
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(b, "rollout:")); strings.HasPrefix(b, "rollout:") && (err != nil || n < 1) {
		return errors.New("rollout:N with N ≥ 1")
	}
	return nil
}

// Architecture resolves the network architecture from the preset and overrides.
func (c *Config) Architecture() (model.Config, error) {
	a, err := model.Preset(c.Net.Preset)
	if err != nil {
		return a, fmt.Errorf("net.preset = %q, want one of %v", c.Net.Preset, model.PresetNames())
	}
	n := c.Net
	if n.Channels > 0 {
		a.Channels = n.Channels
	}
	if n.Blocks >= 0 {
		a.Blocks = n.Blocks
	}
	if n.PolicyChannels > 0 {
		a.PolicyChannels = n.PolicyChannels
	}
	if n.ValueChannels > 0 {
		a.ValueChannels = n.ValueChannels
	}
	if n.ValueHidden > 0 {
		a.ValueHidden = n.ValueHidden
	}
	a.GlobalPool = a.GlobalPool || n.GlobalPool
	a.ScoreHead = a.ScoreHead || n.ScoreHead
	if err := a.Validate(); err != nil {
		return a, fmt.Errorf("net: %w", err)
	}
	return a, nil
}

// VariantValue returns the parsed variant.
func (c *Config) VariantValue() env.Variant {
	v, _ := env.ParseVariant(c.Variant)
	return v
}

// YAML returns the resolved config as YAML (written into the run directory).
func (c *Config) YAML() ([]byte, error) { return yaml.Marshal(c) }

func (c *ClusterConfig) validate() error {
	if c.IsZero() {
		if c.Listen != "" || c.Run != "" || c.LocalWorkers != 0 || c.WorkerParallel != 0 || c.Staleness != 0 || c.AckWaitS != 0 || c.MaxBacklog != 0 ||
			c.Replicas != 0 || c.Creds != "" || c.WorkerCreds != "" || !c.TLS.IsZero() {
			return errors.New("cluster.server is empty: set it (embedded or nats://host:port) or remove the cluster section")
		}
		return nil
	}
	switch {
	case c.Server == "embedded":
		if c.Listen != "" {
			host, port, err := net.SplitHostPort(c.Listen)
			if _, perr := strconv.Atoi(port); err != nil || perr != nil {
				return fmt.Errorf("cluster.listen = %q, want host:port", c.Listen)
			}
			if !loopback.Host(host) && c.WorkerCreds == "" {
				return fmt.Errorf("cluster.listen = %q is not loopback: other machines' workers need credentials (set cluster.worker_creds)", c.Listen)
			}
		}
		if c.Creds != "" {
			return errors.New("cluster.creds is the trainer's credentials for an external server; the embedded server takes cluster.worker_creds")
		}
		if c.Replicas > 1 {
			return fmt.Errorf("cluster.replicas = %d needs a NATS cluster of that many servers; the embedded server is one (use cluster.server: nats://…)", c.Replicas)
		}
	case strings.HasPrefix(c.Server, "nats://") || strings.HasPrefix(c.Server, "tls://"):
		if c.Listen != "" || c.WorkerCreds != "" {
			return errors.New("cluster.listen and cluster.worker_creds configure the embedded server: with an external one, its own config does")
		}
	default:
		return fmt.Errorf("cluster.server = %q, want embedded or nats://host:port", c.Server)
	}
	if c.Run != "" {
		if n, err := cluster.RunName(c.Run); err != nil || n != c.Run {
			return fmt.Errorf("cluster.run = %q, want letters, digits, '_' and '-' only", c.Run)
		}
	}
	return nil
}
