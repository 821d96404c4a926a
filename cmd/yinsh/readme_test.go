package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestReadmeCommandsExist checks that every `yinsh ...` command line in README.md and the docs names a
// real command and only flags that command has, so the documentation cannot drift from the CLI; and
// runs the README's examples that finish in seconds.
func TestReadmeCommandsExist(t *testing.T) {
	root := newRootCmd()
	root.InitDefaultCompletionCmd() // cobra adds `completion` when it executes
	// `yinsh CMD ...` in backticks, and lines of sh code blocks starting with yinsh or bin/yinsh
	inline := regexp.MustCompile("`((?:bin/)?yinsh [^`]+)`")
	flag := regexp.MustCompile(`(?:^|[\s\[|])(--[a-z][a-z0-9-]*)`)
	checked := 0
	for _, file := range []string{"../../README.md", "../../docs/engine-protocol.md", "../../docs/rules.md", "../../docs/http-api.md", "../../docs/distributed.md"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		inCode := false
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "```") {
				inCode = !inCode
				continue
			}
			if inCode {
				if f := strings.TrimSpace(l); strings.HasPrefix(f, "yinsh ") || strings.HasPrefix(f, "bin/yinsh ") {
					lines = append(lines, strings.SplitN(f, "#", 2)[0])
				}
				continue
			}
			for _, m := range inline.FindAllStringSubmatch(l, -1) {
				lines = append(lines, m[1])
			}
		}
		for _, line := range lines {
			words := strings.Fields(strings.TrimPrefix(line, "bin/"))[1:]
			if len(words) > 0 && words[0] == strings.ToUpper(words[0]) {
				continue // a placeholder: `yinsh CMD --help`
			}
			cmd, rest, err := root.Find(words)
			if err != nil || cmd == root && len(words) > 0 && !strings.HasPrefix(words[0], "-") {
				t.Errorf("%s: %q: no such command (%v)", file, line, err)
				continue
			}
			_ = rest
			for _, m := range flag.FindAllStringSubmatch(line, -1) {
				name := strings.TrimPrefix(m[1], "--")
				if !hasFlag(cmd, name) {
					t.Errorf("%s: %q: %s has no flag --%s", file, line, cmd.CommandPath(), name)
				}
			}
			checked++
		}
	}
	t.Logf("%d documented command lines checked", checked)
	if checked < 30 {
		t.Errorf("only %d documented command lines found", checked)
	}
	// the quick examples, run as written
	for _, args := range [][]string{
		{"perft", "--depth", "1", "--divide"},
		{"show", "--moves", "e5 f6"},
		{"perft", "--depth", "2", "--moves", "g2 e7 g3 e2 g4 g7 g5 e4 g6 c6"},
	} {
		if _, errs, code := runCLI(t, "", args...); code != 0 {
			t.Errorf("%v: code %d: %s", args, code, errs)
		}
	}
}

func hasFlag(cmd *cobra.Command, name string) bool {
	for c := cmd; c != nil; c = c.Parent() {
		if c.Flags().Lookup(name) != nil || c.PersistentFlags().Lookup(name) != nil {
			return true
		}
	}
	return name == "help" || name == "version"
}

// Every command's --help runs and says what the command is.
func TestEveryHelp(t *testing.T) {
	var walk func(c *cobra.Command, path []string)
	n := 0
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			if sub.Hidden {
				continue
			}
			p := append(append([]string(nil), path...), sub.Name())
			out, errs, code := runCLI(t, "", append(p, "--help")...)
			if code != 0 || !strings.Contains(out, "Usage:") || errs != "" {
				t.Errorf("%v --help: code %d out %q err %q", p, code, out, errs)
			}
			n++
			walk(sub, p)
		}
	}
	walk(newRootCmd(), nil)
	if n < 20 {
		t.Errorf("only %d commands", n)
	}
}
