package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// names lists dir's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gen-0001.ckpt")
	for _, content := range []string{"one", "two, longer", ""} {
		if err := WriteFile(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != content {
			t.Fatalf("read back %q, %v; want %q", b, err, content)
		}
		if got := names(t, dir); !slices.Equal(got, []string{"gen-0001.ckpt"}) {
			t.Fatalf("directory holds %v", got)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != Mode {
		t.Fatalf("mode %v, want %v", fi.Mode().Perm(), Mode)
	}
}

// TestWriteFileFailures fails a write at each of its steps: the target keeps its old content and no
// temporary file is left.
func TestWriteFileFailures(t *testing.T) {
	t.Cleanup(func() { hook = nil })
	for _, at := range []string{"write", "sync", "close", "rename"} {
		dir := t.TempDir()
		path := filepath.Join(dir, "state.json")
		if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		injected := errors.New("injected failure")
		var seen []string
		hook = func(s string) error {
			seen = append(seen, s)
			if s == at {
				return injected
			}
			return nil
		}
		err := WriteFile(path, []byte("new content"))
		hook = nil
		if !errors.Is(err, injected) {
			t.Fatalf("failing at %s: error %v, want the injected one", at, err)
		}
		if seen[len(seen)-1] != at {
			t.Fatalf("failing at %s: steps %v", at, seen)
		}
		if at != "rename" && !strings.Contains(err.Error(), path) {
			t.Fatalf("failing at %s: error %q does not name the target", at, err)
		}
		if b, _ := os.ReadFile(path); string(b) != "old" {
			t.Fatalf("failing at %s: target now %q", at, b)
		}
		if got := names(t, dir); !slices.Equal(got, []string{"state.json"}) {
			t.Fatalf("failing at %s: directory holds %v", at, got)
		}
	}
}

func TestWriteFileMissingDir(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "nodir", "x"), []byte("x")); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	if got := names(t, dir); len(got) != 0 {
		t.Fatalf("directory holds %v", got)
	}
}

// TestWriteFileOverDirectory: the rename onto a directory fails; the directory is untouched.
func TestWriteFileOverDirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "plots")
	if err := os.MkdirAll(filepath.Join(target, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(target, []byte("x")); err == nil {
		t.Fatal("a file replaced a directory")
	}
	if got := names(t, dir); !slices.Equal(got, []string{"plots"}) {
		t.Fatalf("directory holds %v", got)
	}
	if got := names(t, target); !slices.Equal(got, []string{"inside"}) {
		t.Fatalf("target directory holds %v", got)
	}
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.bin")
	f, err := Create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("one")
	if _, err := os.Stat(path); err == nil {
		t.Fatal("target visible before Commit")
	}
	if !IsTemp(filepath.Base(f.Name())) {
		t.Fatalf("temporary file %s not recognised by IsTemp", f.Name())
	}
	if tgt, _ := Target(filepath.Base(f.Name())); tgt != "out.bin" {
		t.Fatalf("Target(%s) = %q", f.Name(), tgt)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err == nil {
		t.Fatal("second Commit succeeded")
	}
	if _, err := Create(path, false); !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("existing target: %v", err)
	}
	f, err = Create(path, true)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("two")
	f.Abort()
	f.Abort() // a no-op
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Fatalf("aborted write changed the target: %q", b)
	}
	f, _ = Create(path, true)
	f.WriteString("three")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "three" {
		t.Fatalf("target %q", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != Mode {
		t.Fatalf("mode %v, want %v", fi.Mode().Perm(), Mode)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"out.bin"}) {
		t.Fatalf("temporary files left: %v", got)
	}
}

// TestFileCommitFailures: a target that appears while a no-overwrite file is written, and a failing
// sync or rename, leave the target as it was and no temporary file.
func TestFileCommitFailures(t *testing.T) {
	t.Cleanup(func() { hook = nil })
	dir := t.TempDir()
	path := filepath.Join(dir, "manifest.json")
	f, err := Create(path, false)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("mine")
	if err := os.WriteFile(path, []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Commit over a target created meanwhile: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "theirs" {
		t.Fatalf("target %q", b)
	}
	for _, at := range []string{"sync", "rename"} {
		f, err := Create(path, true)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("new")
		injected := errors.New("injected failure")
		hook = func(s string) error {
			if s == at {
				return injected
			}
			return nil
		}
		err = f.Commit()
		hook = nil
		if !errors.Is(err, injected) {
			t.Fatalf("failing at %s: %v", at, err)
		}
		if b, _ := os.ReadFile(path); string(b) != "theirs" {
			t.Fatalf("failing at %s: target %q", at, b)
		}
	}
	if got := names(t, dir); !slices.Equal(got, []string{"manifest.json"}) {
		t.Fatalf("temporary files left: %v", got)
	}
}

// TestCreateTempName: the temporary file of CreateTemp is named by the scheme, for its target.
func TestCreateTempName(t *testing.T) {
	dir := t.TempDir()
	f, err := CreateTemp(dir, "shard-000003.yz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	name := filepath.Base(f.Name())
	if !strings.HasPrefix(name, ".shard-000003.yz.tmp-") || !digits(strings.TrimPrefix(name, ".shard-000003.yz.tmp-")) {
		t.Fatalf("temporary name %q", name)
	}
	if fi, _ := f.Stat(); fi.Mode().Perm() != Mode {
		t.Fatalf("mode %v, want %v", fi.Mode().Perm(), Mode)
	}
}

// TestIsTemp covers every scheme a build of this project has written, so that a run killed under an
// older build still has its leftovers found.
func TestIsTemp(t *testing.T) {
	for name, target := range map[string]string{
		".gen-0001.ckpt.tmp-123456":      "gen-0001.ckpt", // this scheme (every writer of the module)
		".state.json.tmp-2424784198":     "state.json",
		".x.tmp-1.tmp-2":                 "x.tmp-1",
		".out.bin.123.tmp":               "out.bin", // datasets.CreateAtomic
		".positions.parquet.77.tmp":      "positions.parquet",
		"shard-000000.yz.2942400998.tmp": "shard-000000.yz", // the shard writer
		"shard-000001.yz.1.tmp":          "shard-000001.yz",
		".shard-000001.yz.tmp-5":         "shard-000001.yz", // the shard writer now
	} {
		got, ok := Target(name)
		if !ok || got != target || !IsTemp(name) {
			t.Errorf("Target(%q) = %q, %v; want %q", name, got, ok, target)
		}
	}
	for _, name := range []string{
		"gen-0001.ckpt", "state.json", "shard-000000.yz", ".tmp-123", "..tmp-1", ".x.tmp-", ".x.tmp-12a",
		"x.tmp", ".x.tmp", "notes.txt.tmp", ".5.tmp", "5.tmp", ".tmp", "", "dir/.x.tmp-1", "dir/x.1.tmp",
		"shard-000005.yz.bak", ".gen-0001.ckpt",
	} {
		if got, ok := Target(name); ok || IsTemp(name) {
			t.Errorf("Target(%q) = %q, true; want not a temporary name", name, got)
		}
	}
}
