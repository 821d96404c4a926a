package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/nets"
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
func builtinPlayer(spec string) bool {
	return spec == "" || spec == "random" || spec == "heuristic" || strings.HasPrefix(spec, "rollout:") ||
		strings.HasPrefix(spec, protocol.SpecPrefix)
}

// checkVariant refuses a checkpoint player trained for another variant than v, unless anyVariant.
// flag names the flag the spec came from. A checkpoint that does not record its variant (older
// ones) is accepted, and one that cannot be read is left to the player's loader to report.
func checkVariant(flag, spec string, v env.Variant, anyVariant bool) error {
	if anyVariant || builtinPlayer(spec) {
		return nil
	}
	path, err := nets.Resolve(spec)
	if err != nil {
		return err
	}
	h, err := model.ReadMetadata(path)
	if err != nil {
		return nil
	}
	trained, ok := h.Meta.VariantValue()
	if !ok || trained == v {
		return nil
	}
	prefix := ""
	if flag != "" {
		prefix = flag + ": "
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
		"export":          {"onnx", "safetensors"},
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
