package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/yinsh-zero/yinsh/cluster/natsserver"
	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/train"
)

// TrainOptions configures `yinsh train`.
type TrainOptions struct {
	Out, Err  io.Writer
	Config    string
	Run       string
	Resume    bool
	Init      string
	Overrides []string
}

func newTrainCmd() *cobra.Command { return newCmdTrain(nil) }

func newCmdTrain(runF func(*TrainOptions) error) *cobra.Command {
	opts := &TrainOptions{}
	cmd := &cobra.Command{
		Use:   "train --config FILE --run DIR [--resume] [--set key=value ...]",
		Short: "Train an agent from zero by self-play: generations of self-play, training, evaluation",
		Long: `Train an agent from zero: each generation plays self-play games with the best network, trains
on the replay window, evaluates the new network against the best (and promotes it by the gate) and
against the baselines, and writes checkpoints, metrics.jsonl and plots into the run directory.
A killed run continues with --resume (the run directory's config.yaml is used; --set still applies;
changes to variant, seed, net.* and selfplay.games are refused, others recorded in
config-history.jsonl). --init CKPT makes a new run's gen-0000 that checkpoint (its architecture
must be the config's net), for example a network fitted to expert games by yinsh fit; the config's
pretrain section does the same fit inside the run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Run == "" {
				return fmt.Errorf("--run DIR is required")
			}
			if opts.Init != "" && opts.Resume {
				return fmt.Errorf("--init starts a new run from a checkpoint; a resumed run already has its networks")
			}
			if opts.Config == "" && !opts.Resume {
				return fmt.Errorf("--config FILE is required (e.g. configs/quickstart.yaml)")
			}
			opts.Out, opts.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
			if runF != nil {
				return runF(opts)
			}
			return trainRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Config, "config", "", "YAML config (see configs/)")
	f.StringVar(&opts.Run, "run", "", "run directory (created; holds checkpoints, games, metrics, plots)")
	f.BoolVar(&opts.Resume, "resume", false, "continue the run in --run")
	f.StringVar(&opts.Init, "init", "", "start a new run from this checkpoint (e.g. from yinsh fit) instead of a fresh network")
	f.StringArrayVar(&opts.Overrides, "set", nil, "override a config field, e.g. --set selfplay.simulations=128 (repeatable)")
	return cmd
}

func trainRun(ctx context.Context, opts *TrainOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(opts.Err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	// a resumed run reads its own config.yaml unless --config names one; either way train.Train
	// compares the result with the run's config, refuses changes that would corrupt the run and
	// records the others in config-history.jsonl
	cfgFile := opts.Config
	if opts.Resume && cfgFile == "" {
		cfgFile = filepath.Join(opts.Run, train.ConfigFile)
	}
	if err := checkOverrides(opts.Overrides); err != nil {
		return err
	}
	cfg, err := train.LoadConfig(cfgFile, opts.Overrides)
	if err != nil {
		return err
	}
	be, err := backendFor(cfg.Backend, cfg.Device, cfg.Threads)
	if err != nil {
		return err
	}
	return train.Train(ctx, train.Options{
		Dir: opts.Run, Config: cfg, Backend: be, Resume: opts.Resume, Init: opts.Init, Out: opts.Out, Progress: opts.Err, Log: logger,
		StartServer: natsserver.Starter,
	})
}

// SelfplayOptions configures `yinsh selfplay`.
type SelfplayOptions struct {
	Out, Err   io.Writer
	Config     string
	Checkpoint string
	Games      int
	OutDir     string
	Overrides  []string
	AnyVariant bool // play a checkpoint trained for another variant than the config's
}

func newSelfplayCmd() *cobra.Command {
	opts := &SelfplayOptions{}
	cmd := &cobra.Command{
		Use:   "selfplay --config FILE --checkpoint FILE --games N --out DIR",
		Short: "Play self-play games with a network and record them as dataset shards",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Config == "" || opts.Checkpoint == "" || opts.OutDir == "" {
				return fmt.Errorf("--config, --checkpoint and --out are required")
			}
			if opts.Games < 1 {
				return fmt.Errorf("--games must be at least 1, got %d", opts.Games)
			}
			opts.Out, opts.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return selfplayRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Config, "config", "", "YAML config (its selfplay section and backend are used)")
	f.StringVar(&opts.Checkpoint, "checkpoint", "", "network checkpoint")
	f.IntVar(&opts.Games, "games", 100, "games to play")
	f.StringVar(&opts.OutDir, "out", "", "directory for the game shards (a restart continues numbering)")
	f.StringArrayVar(&opts.Overrides, "set", nil, "override a config field (repeatable)")
	f.BoolVar(&opts.AnyVariant, "any-variant", false, "play a checkpoint trained for another variant than the config's")
	return cmd
}

func selfplayRun(ctx context.Context, opts *SelfplayOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := checkOverrides(opts.Overrides); err != nil {
		return err
	}
	cfg, err := train.LoadConfig(opts.Config, opts.Overrides)
	if err != nil {
		return err
	}
	if h, err := model.ReadMetadata(opts.Checkpoint); err == nil && !opts.AnyVariant {
		if v, ok := h.Meta.VariantValue(); ok && v != cfg.VariantValue() {
			return fmt.Errorf("checkpoint %s was trained for %s; the config's variant is %s (pass --set variant=%s, or --any-variant to play it anyway)",
				opts.Checkpoint, v, cfg.VariantValue(), v)
		}
	}
	be, err := backendFor(cfg.Backend, cfg.Device, cfg.Threads)
	if err != nil {
		return err
	}
	net, err := be.Load(opts.Checkpoint)
	if err != nil {
		return err
	}
	defer net.Close()
	w, err := datasets.NewWriter(opts.OutDir, datasets.WriterOptions{GamesPerShard: max(opts.Games/8, 16), Recover: true})
	if err != nil {
		return err
	}
	// games already in the directory keep their numbers: a restart plays the first --games numbers
	// whose seeds are not recorded there (so a game recovered from a killed run is not played again)
	have, err := datasets.RecordedIDs(opts.OutDir)
	if err != nil {
		return err
	}
	var todo []int
	for i := 0; len(todo) < opts.Games; i++ {
		if !have[selfplay.GameSeed(cfg.Seed, i)] {
			todo = append(todo, i)
		}
	}
	gen := strings.TrimSuffix(filepath.Base(opts.Checkpoint), filepath.Ext(opts.Checkpoint))
	st, err := train.PlaySelfPlay(ctx, train.SelfPlayOptions{
		Config: &cfg, Net: net, Generator: gen, Indices: todo, Seed: cfg.Seed, Writer: w, Progress: opts.Err,
	})
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.Out, "games: %d\npositions: %d\ngames/hour: %.1f\npositions/s: %.1f\nmean batch: %.2f\nshards: %s\n",
		st.Games, st.Positions, st.GamesPerHour(), float64(st.Evaluations)/st.Elapsed.Seconds(), st.MeanBatch, strings.Join(w.Shards(), " "))
	return nil
}

// checkOverrides checks every --set key=value on its own against the config's fields before the
// config is loaded: an unknown key, a key that names a section, or a value of the wrong type is
// reported with the key and its value (train.ParseConfig applies the overrides to the file's YAML
// first, so its own message would point at a line of the merged text, not at the --set).
func checkOverrides(overrides []string) error {
	for _, o := range overrides {
		key, val, ok := strings.Cut(o, "=")
		if !ok || key == "" {
			return fmt.Errorf("--set %q: want key=value (e.g. selfplay.simulations=128)", o)
		}
		path := strings.Split(key, ".")
		if err := checkConfigKey(reflect.TypeOf(train.Config{}), path, nil); err != nil {
			return fmt.Errorf("--set %s: %v", o, err)
		}
		// the value alone, decoded into the field it sets
		node := overrideValue(val)
		for i := len(path) - 1; i >= 0; i-- {
			node = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{
				{Kind: yaml.ScalarNode, Tag: "!!str", Value: path[i]}, node}}
		}
		text, err := yaml.Marshal(node)
		if err != nil {
			return fmt.Errorf("--set %s: %v", o, err)
		}
		cfg := train.DefaultConfig()
		dec := yaml.NewDecoder(bytes.NewReader(text))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("--set %s: %s", o, yamlReason(err))
		}
	}
	return nil
}

// overrideValue parses a --set value as YAML, as train.ParseConfig does (numbers, booleans and
// [lists] keep their types; anything else is a string).
func overrideValue(val string) *yaml.Node {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(val), &doc); err == nil && doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0]
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: val}
}

// yamlLine matches the "line N: " a YAML decoding error puts before each reason.
var yamlLine = regexp.MustCompile(`line [0-9]+: `)

// yamlReason is a YAML decoding error of a one-key document without its line numbers and prefix.
func yamlReason(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		reasons := make([]string, len(te.Errors))
		for i, e := range te.Errors {
			reasons[i] = yamlLine.ReplaceAllString(e, "")
		}
		return strings.Join(reasons, "; ")
	}
	return strings.TrimPrefix(yamlLine.ReplaceAllString(err.Error(), ""), "yaml: ")
}

var yamlUnmarshaler = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()

// checkConfigKey checks that path names a field of t through its yaml tags; done is the path
// already walked (for messages).
func checkConfigKey(t reflect.Type, path, done []string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	here := strings.Join(done, ".")
	if reflect.PointerTo(t).Implements(yamlUnmarshaler) {
		return nil // decodes itself: the decoding check judges it
	}
	if t.Kind() != reflect.Struct {
		if len(path) == 0 || t.Kind() == reflect.Map {
			return nil
		}
		return fmt.Errorf("%s is a value (%s), not a section with keys", here, t.Kind())
	}
	keys := yamlKeys(t)
	if len(path) == 0 {
		return fmt.Errorf("%s is a section, not a value: set one of its keys (%s)", here, strings.Join(sortedKeys(keys), ", "))
	}
	ft, ok := keys[path[0]]
	if !ok {
		where := "the config"
		if here != "" {
			where = here
		}
		msg := fmt.Sprintf("unknown key %s: %s has no key %q", strings.Join(append(append([]string(nil), done...), path...), "."), where, path[0])
		if s := closest(path[0], sortedKeys(keys)); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(append(append([]string(nil), done...), s), "."))
		} else {
			msg += fmt.Sprintf(" (keys: %s)", strings.Join(sortedKeys(keys), ", "))
		}
		return errors.New(msg)
	}
	return checkConfigKey(ft, path[1:], append(done, path[0]))
}

// yamlKeys returns the YAML keys of a struct type's fields (inline structs flattened) and their types.
func yamlKeys(t reflect.Type) map[string]reflect.Type {
	keys := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range yamlKeys(ft) {
					keys[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		keys[name] = f.Type
	}
	return keys
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// closest returns the candidate nearest to s by edit distance, if it is near enough to be a typo.
func closest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := editDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= max(2, len(s)/4) {
		return best
	}
	return ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
