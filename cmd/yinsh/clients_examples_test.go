package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fencedAfter returns the body of the first ``` block (of the given info string, "" for a plain
// one) after the heading or text marker in a markdown document.
func fencedAfter(t *testing.T, doc, marker, info string) string {
	t.Helper()
	i := strings.Index(doc, marker)
	if i < 0 {
		t.Fatalf("no %q in the document", marker)
	}
	open := "```" + info + "\n"
	a := strings.Index(doc[i:], open)
	if a < 0 {
		t.Fatalf("no %s block after %q", open, marker)
	}
	a += i + len(open)
	b := strings.Index(doc[a:], "```\n")
	if b < 0 {
		t.Fatalf("unclosed block after %q", marker)
	}
	return doc[a : a+b]
}

// TestEngineClientExample runs examples/engine_client.py, the minimal client that
// docs/engine-protocol.md prints (the two must be the same text), against the built binary and
// checks that it prints exactly the output the page shows.
func TestEngineClientExample(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is needed for the engine client example")
		}
		t.Skip("no python3")
	}
	root := filepath.Join("..", "..")
	doc := string(mustReadFile(t, filepath.Join(root, "docs", "engine-protocol.md")))
	script := filepath.Join(root, "examples", "engine_client.py")
	if got, want := string(mustReadFile(t, script)), fencedAfter(t, doc, "## A minimal client (Python)", "python"); got != want {
		t.Fatalf("examples/engine_client.py differs from the client docs/engine-protocol.md prints")
	}
	cmd := exec.Command(py, script)
	cmd.Env = append(os.Environ(), "YINSH="+yinshBinary(t))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	if want := fencedAfter(t, doc, "Output (stderr not shown):", ""); string(out) != want {
		t.Errorf("the example prints\n%s\nthe page shows\n%s", out, want)
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
