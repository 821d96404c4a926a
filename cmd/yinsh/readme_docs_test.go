package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

const modulePath = "github.com/yinsh-zero/yinsh"

// readmeSection returns the lines of README.md's section whose heading starts with title, up to the
// next heading of the same level.
func readmeSection(t *testing.T, title string) []string {
	t.Helper()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "## ") {
			if in {
				break
			}
			in = strings.HasPrefix(l, "## "+title)
			continue
		}
		if in {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		t.Fatalf("README.md has no section %q", title)
	}
	return out
}

// TestReadmeArchitectureOrder checks README's "Architecture (dependency order)": its bullets name the
// module's top-level folders in an order where no package imports a package of a folder listed
// after its own (go list gives the imports), and every folder with Go packages is listed.
func TestReadmeArchitectureOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	bullet := regexp.MustCompile("^- `([a-z0-9_/]+)/`")
	goFile := regexp.MustCompile("`([a-z0-9_]+\\.go)`")
	rank := map[string]int{}
	var order []string
	for _, l := range readmeSection(t, "Architecture (dependency order)") {
		if m := bullet.FindStringSubmatch(l); m != nil {
			rank[m[1]] = len(order)
			order = append(order, m[1])
		}
		// every file a bullet names exists in its folder's tree
		if len(order) > 0 {
			for _, m := range goFile.FindAllStringSubmatch(l, -1) {
				if !fileUnder(filepath.Join("../..", order[len(order)-1]), m[1]) {
					t.Errorf("README's architecture names %s under %s/, which has no such file", m[1], order[len(order)-1])
				}
			}
		}
	}
	if len(order) < 8 {
		t.Fatalf("only %d folders listed: %v", len(order), order)
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", modulePath+"/...")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// folderOf maps an import path of the module to its listed folder: the longest listed prefix
	// (internal/progress is listed on its own line, internal/sgemm under model's), else the first
	// path element.
	folderOf := func(path string) (string, bool) {
		rel, ok := strings.CutPrefix(path, modulePath+"/")
		if !ok {
			return "", false
		}
		best := ""
		for f := range rank {
			if (rel == f || strings.HasPrefix(rel, f+"/")) && len(f) > len(best) {
				best = f
			}
		}
		if best == "" {
			best = strings.SplitN(rel, "/", 2)[0]
		}
		return best, true
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	pkgs := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		from, _ := folderOf(f[0])
		r, listed := rank[from]
		if !listed {
			t.Errorf("package %s: its folder %s/ is not in README's architecture list", f[0], from)
			continue
		}
		pkgs++
		for _, imp := range f[1:] {
			to, ours := folderOf(imp)
			if !ours || to == from {
				continue
			}
			if rt, ok := rank[to]; ok && rt > r {
				t.Errorf("%s imports %s, but README lists %s/ after %s/", f[0], imp, to, from)
			}
		}
	}
	t.Logf("%d packages in %d folders checked against README's order %v", pkgs, len(order), order)
}

// fileUnder reports whether a file called name exists in dir or below it.
func fileUnder(dir, name string) bool {
	found := false
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == name {
			found = true
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// TestReadmeFlagDefaults checks the flag defaults the docs state against cobra's: `[--flag VALUE]`
// in a documented command line with a literal VALUE (not an upper-case placeholder), and prose of
// the form "`--flag …` … (default VALUE" / "--flag N (default VALUE".
func TestReadmeFlagDefaults(t *testing.T) {
	root := newRootCmd()
	root.InitDefaultCompletionCmd()
	var all []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	// defaultsOf lists the defaults of flag name across commands (or of one command).
	defaultsOf := func(cmds []*cobra.Command, name string) []string {
		var d []string
		for _, c := range cmds {
			if f := c.Flags().Lookup(name); f != nil {
				d = append(d, f.DefValue)
			}
		}
		return d
	}
	literal := regexp.MustCompile(`^[a-z0-9._/-][a-z0-9.:_/-]*[a-z0-9._/-]$|^[a-z0-9]$`)
	inLine := regexp.MustCompile(`\[--([a-z][a-z0-9-]*) ([^\]\s|]+)\]`)
	prose := regexp.MustCompile("`?--([a-z][a-z0-9-]*)[^()`]*`?[^()]{0,60}\\(default ([^,;)\\s]+)")
	command := regexp.MustCompile("`(?:bin/)?yinsh ([a-z][a-z -]*?) [\\[-]")
	checked := 0
	for _, file := range []string{"../../README.md", "../../docs/engine-protocol.md", "../../docs/http-api.md", "../../docs/distributed.md"} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(data), "\n") {
			// the command a line documents, when it starts with one: its flags are looked up there
			scope := all
			if m := command.FindStringSubmatch(l); m != nil {
				if c, _, err := root.Find(strings.Fields(m[1])); err == nil && c != root {
					scope = []*cobra.Command{c}
				}
			}
			check := func(name, want string) {
				want = strings.Trim(want, "`'\"")
				if !literal.MatchString(want) || strings.ToUpper(want) == want && strings.ToLower(want) != want {
					return // a placeholder (N, MS, FILE)
				}
				have := defaultsOf(scope, name)
				if len(have) == 0 {
					have = defaultsOf(all, name)
				}
				if len(have) == 0 {
					return // not a flag of ours (the engine protocol's own options)
				}
				checked++
				for _, h := range have {
					if h == want || strings.TrimSuffix(h, "s") == strings.TrimSuffix(want, "s") {
						return
					}
				}
				t.Errorf("%s:%d: --%s documented with default %q, cobra's is %q", file, i+1, name, want, have)
			}
			for _, m := range inLine.FindAllStringSubmatch(l, -1) {
				check(m[1], m[2])
			}
			for _, m := range prose.FindAllStringSubmatch(l, -1) {
				check(m[1], m[2])
			}
		}
	}
	t.Logf("%d documented flag defaults checked", checked)
	if checked < 3 {
		t.Errorf("only %d documented flag defaults found", checked)
	}
}
