package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/internal/suggest"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/nets"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

// groupCmd is a command that only holds subcommands: without arguments it prints its help, and an
// unknown subcommand is an error (cobra would print the help and exit 0).
func groupCmd(use, short string) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			var have []string
			for _, c := range cmd.Commands() {
				if c.IsAvailableCommand() {
					have = append(have, c.Name())
				}
			}
			msg := fmt.Sprintf("unknown command %q for %q (commands: %s)", args[0], cmd.CommandPath(), strings.Join(have, ", "))
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf("; did you mean %s?", strings.Join(s, " or "))
			}
			return fmt.Errorf("%s", msg)
		},
	}
}

// versionText describes the build: the module version, the VCS revision and whether the tree was
// modified, the Go version and the build tags (from runtime/debug.ReadBuildInfo).
func versionText() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "yinsh (no build information)\n"
	}
	set := map[string]string{}
	for _, s := range bi.Settings {
		set[s.Key] = s.Value
	}
	var b strings.Builder
	ver := bi.Main.Version
	if ver == "" {
		ver = "(devel)"
	}
	path := bi.Main.Path
	if path == "" {
		path = "github.com/yinsh-zero/yinsh"
	}
	fmt.Fprintf(&b, "yinsh %s\n", ver)
	fmt.Fprintf(&b, "module: %s %s\n", path, ver)
	if rev := set["vcs.revision"]; rev != "" {
		mod := ""
		if set["vcs.modified"] == "true" {
			mod = " (modified)"
		}
		when := ""
		if t := set["vcs.time"]; t != "" {
			when = ", committed " + t
		}
		fmt.Fprintf(&b, "revision: %s%s%s\n", rev, mod, when)
	} else {
		fmt.Fprintf(&b, "revision: unknown (built without VCS information)\n")
	}
	fmt.Fprintf(&b, "go: %s\n", bi.GoVersion)
	tags := set["-tags"]
	if tags == "" {
		tags = "none"
	}
	fmt.Fprintf(&b, "tags: %s\n", tags)
	return b.String()
}

// parseVariant parses a --variant value.
func parseVariant(s string) (env.Variant, error) {
	switch s {
	case "standard":
		return env.Standard, nil
	case "blitz":
		return env.Blitz, nil
	}
	return 0, fmt.Errorf("--variant %q: want standard or blitz", s)
}

// builtinPlayer reports whether a player spec names a built-in player or an engine (not a file).
func builtinPlayer(spec string) bool { return spec == "" || selfplay.Builtin(spec) }

// checkVariant refuses a checkpoint player trained for another variant than v, unless anyVariant.
// flag names the flag the spec came from. A checkpoint that does not record its variant (older
// ones) is accepted, and one that cannot be read is left to the player's loader to report.
//
// "reference" and a level:N player (selfplay.Levels) play the reference network of v itself, so the
// variants always agree; they are refused only where v has no reference network (nets.Has), with or
// without anyVariant. A bad level is left to the player's parser to report.
func checkVariant(flag, spec string, v env.Variant, anyVariant bool) error {
	prefix := ""
	if flag != "" {
		prefix = flag + ": "
	}
	if selfplay.FollowsVariant(spec) && !nets.Has(v) {
		return fmt.Errorf("%s%s plays the reference network of --variant, and %s has none (play heuristic, or a checkpoint of %s)",
			prefix, spec, v, v)
	}
	trained, ok := selfplay.TrainedVariant(spec, v)
	if anyVariant || !ok || trained == v {
		return nil
	}
	return fmt.Errorf("%scheckpoint %s was trained for %s; --variant is %s (pass --variant %s, or --any-variant to play it anyway)",
		prefix, spec, trained, v, trained)
}

// pkgPrefix matches a package name prefix of an error message at its start or after ": ".
var pkgPrefix = regexp.MustCompile(`(^|: )(env|model|selfplay|datasets|mcts|train|engine|gonum|torch|stats|protocol|policy): `)

// tidyError rewrites an error message for the user: package prefixes ("env: ", "model: ") dropped,
// and an action token's parse error said once, not nested ("bad action "z9": "z9" is not a point").
func tidyError(msg string) string {
	for {
		t := pkgPrefix.ReplaceAllString(msg, "$1")
		if t == msg {
			break
		}
		msg = t
	}
	return badActionRe.ReplaceAllString(msg, `$1`)
}

// badActionRe matches a token error that repeats the token: `token 1 "z9": bad action "z9": ` and
// `token "z9": bad action "z9": ` (as env's token parsers nest ParseAction's error).
var badActionRe = regexp.MustCompile(`(token (?:[0-9]+ )?("[^"]*"): )bad action "[^"]*": `)

// actionError is a token's parse error as the user should read it: the reason only, without the
// token repeated or a package prefix.
func actionError(err error) string {
	msg := tidyError(err.Error())
	if strings.HasPrefix(msg, "bad action ") {
		if q := strings.Index(msg, `": `); q >= 0 {
			msg = msg[q+3:]
		}
	}
	return msg
}

// registerCompletions gives the enumerated flags of every command their shell completions (yinsh
// completion bash|zsh|fish|powershell).
func registerCompletions(root *cobra.Command) {
	fixed := func(vals ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(vals, cobra.ShellCompDirectiveNoFileComp)
	}
	byFlag := map[string]cobra.CompletionFunc{
		"variant":   fixed("standard", "blitz"),
		"as":        fixed("white", "black"),
		"backend":   fixed("gonum", "torch"),
		"log-level": fixed("debug", "info", "warn", "error"),
		"evaluator": fixed("uniform", "rollout:"),
		"net":       completeNet,
		"player":    completePlayer,
		"a":         completePlayer,
		"b":         completePlayer,
		"checkpoint": func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			out := completeFiles(toComplete, ".ckpt", ".safetensors")
			return out, directiveFor(out)
		},
	}
	formats := map[string][]string{
		"export":          {"onnx", "safetensors", "weights"},
		"datasets export": {"parquet"},
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(c.CommandPath(), root.Name()+" ")
		for name, f := range byFlag {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, f)
			}
		}
		if vals, ok := formats[path]; ok && c.Flags().Lookup("format") != nil {
			_ = c.RegisterFlagCompletionFunc("format", fixed(vals...))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// completeNet completes --net: the presets, then YAML files.
func completeNet(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := matching(toComplete, model.PresetNames()...)
	out = append(out, completeFiles(toComplete, ".yaml", ".yml")...)
	return out, directiveFor(out)
}

// completePlayer completes a player spec: random, heuristic, rollout:, engine:, then checkpoint
// files (and directories to descend into).
func completePlayer(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := matching(toComplete, "random", "heuristic", "rollout:", protocol.SpecPrefix)
	if strings.HasPrefix(toComplete, "rollout:") {
		out = matching(toComplete, "rollout:50", "rollout:200", "rollout:800")
	}
	out = append(out, completeFiles(toComplete, ".ckpt", ".safetensors")...)
	return out, directiveFor(out)
}

func matching(prefix string, vals ...string) []cobra.Completion {
	var out []cobra.Completion
	for _, v := range vals {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// completeFiles lists the directories and the files with one of the extensions whose path starts
// with prefix.
func completeFiles(prefix string, exts ...string) []cobra.Completion {
	matches, _ := filepath.Glob(globEscape(prefix) + "*")
	sort.Strings(matches)
	var out []cobra.Completion
	hidden := strings.HasPrefix(prefix[strings.LastIndex(prefix, string(filepath.Separator))+1:], ".")
	for _, m := range matches {
		if strings.HasPrefix(filepath.Base(m), ".") && !hidden {
			continue // dot files only when asked for
		}
		st, err := os.Stat(m)
		if err != nil {
			continue
		}
		if st.IsDir() {
			out = append(out, m+string(filepath.Separator))
			continue
		}
		for _, e := range exts {
			if strings.EqualFold(filepath.Ext(m), e) {
				out = append(out, m)
			}
		}
	}
	return out
}

func globEscape(s string) string {
	return strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`).Replace(s)
}

// directiveFor keeps the shell from adding a space after a value that continues (rollout:, a
// directory) and from offering other files.
func directiveFor(out []cobra.Completion) cobra.ShellCompDirective {
	d := cobra.ShellCompDirectiveNoFileComp
	for _, c := range out {
		if strings.HasSuffix(c, ":") || strings.HasSuffix(c, string(filepath.Separator)) {
			d |= cobra.ShellCompDirectiveNoSpace
		}
	}
	return d
}

// flagSynonyms maps names users try to the flags they mean, where neither the name nor the edit
// distance would find them (the flags a command does not have are left out of its suggestions).
var flagSynonyms = map[string][]string{
	"simulations": {"sims"}, "simulation": {"sims"}, "sim": {"sims"}, "playouts": {"sims"},
	"visits": {"sims"}, "nodes": {"sims"},
	"time": {"movetime"}, "move-time": {"movetime"}, "time-per-move": {"movetime"}, "ms": {"movetime"},
	"n": {"games"}, "count": {"games"}, "num-games": {"games"}, "ngames": {"games"}, "rounds": {"games"},
	"model": {"checkpoint", "net"}, "network": {"checkpoint", "net"}, "weights": {"checkpoint"},
	"ckpt": {"checkpoint"}, "net": {"checkpoint"},
	"output": {"out"}, "output-dir": {"out"}, "outdir": {"out"},
	"cores": {"parallel", "threads"}, "jobs": {"parallel", "threads"}, "workers": {"parallel", "threads"},
	"concurrency": {"parallel"},
	"rules":       {"variant"}, "random-seed": {"seed"}, "rng-seed": {"seed"},
	"verbose": {"log-level"}, "debug": {"log-level"}, "quiet": {"log-level"},
	"color": {"as"}, "colour": {"as"}, "side": {"as"},
	"agent": {"player"}, "opponent": {"player", "b"}, "engine": {"player"},
	"overwrite": {"force"}, "cfg": {"config"}, "config-file": {"config"},
}

// flagError is the root's flag error handler: an unknown flag's error names the command and
// suggests its closest flags ("unknown flag: --simulations for \"yinsh play\"; did you mean --sims?",
// see suggestFlags); other flag errors pass unchanged.
func flagError(cmd *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return err
	}
	name := ne.GetSpecifiedName()
	if ne.GetSpecifiedShortnames() != "" {
		// -sims for --sims: the whole group is the name tried
		name = ne.GetSpecifiedShortnames()
	}
	msg := fmt.Sprintf("%s for %q", err, cmd.CommandPath())
	if s := suggestFlags(cmd, name); len(s) > 0 {
		for i := range s {
			s[i] = "--" + s[i]
		}
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(s, " or "))
	} else {
		msg += fmt.Sprintf(" (see %s --help)", cmd.CommandPath())
	}
	return errors.New(msg)
}

// suggestFlags returns up to three of cmd's visible flags (its own and the inherited ones) closest
// to the name tried: within edit distance 2 (3 for names of 8 or more letters), or one name a
// prefix of the other (3 letters at least), or a synonym (flagSynonyms), or, when none of these,
// a flag whose usage starts with the name (--simulations: "simulations per decision ..." of
// --sims). Nearest first. (editDistance is train.go's.)
func suggestFlags(cmd *cobra.Command, tried string) []string {
	tried = strings.ToLower(strings.TrimLeft(tried, "-"))
	type cand struct {
		name string
		rank int
	}
	var cs []cand
	seen := map[string]bool{}
	add := func(name string, rank int) {
		if !seen[name] {
			seen[name] = true
			cs = append(cs, cand{name, rank})
		}
	}
	var flags []*pflag.Flag
	visit := func(f *pflag.Flag) {
		if !f.Hidden {
			flags = append(flags, f)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	far := 2
	if len(tried) >= 8 {
		far = 3
	}
	for _, f := range flags {
		if d := suggest.EditDistance(tried, f.Name); d <= far {
			add(f.Name, d)
		} else if min(len(tried), len(f.Name)) >= 3 && (strings.HasPrefix(f.Name, tried) || strings.HasPrefix(tried, f.Name)) {
			add(f.Name, far+1)
		}
	}
	for _, syn := range flagSynonyms[tried] {
		if f := cmd.Flags().Lookup(syn); f != nil && !f.Hidden {
			add(syn, far+2)
		}
	}
	word := strings.TrimSuffix(strings.ReplaceAll(tried, "-", " "), "s")
	lastResort := len(cs) == 0 // the usage only when nothing else is near
	for _, f := range flags {
		if !lastResort {
			break
		}
		first := strings.ToLower(strings.Fields(f.Usage + " ")[0])
		if len(word) >= 3 && strings.TrimSuffix(first, "s") == word {
			add(f.Name, far+3)
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].rank < cs[j].rank })
	var out []string
	for _, c := range cs {
		if len(out) == 3 {
			break
		}
		out = append(out, c.name)
	}
	return out
}
