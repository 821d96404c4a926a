package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExportWebErrors(t *testing.T) {
	dir := t.TempDir()
	notWasm := filepath.Join(dir, "x.wasm")
	os.WriteFile(notWasm, []byte("not wasm"), 0o644)
	wasm := filepath.Join(dir, "ok.wasm")
	os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00"), 0o644)
	exec := filepath.Join(dir, "wasm_exec.js")
	os.WriteFile(exec, []byte("globalThis.Go = class {};"), 0o644)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	site := filepath.Join(dir, "site")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "web", "--checkpoint", "x.ckpt", "--out", site}, "takes no --checkpoint"},
		{[]string{"--format", "web"}, "--out DIR is required"},
		{[]string{"--format", "onnx", "--checkpoint", "x.ckpt", "--out", "x.onnx", "--wasm", wasm}, "--format web only"},
		{[]string{"--format", "web", "--out", site, "--wasm", filepath.Join(dir, "missing.wasm"), "--wasm-exec", exec}, "missing.wasm"},
		{[]string{"--format", "web", "--out", site, "--wasm", notWasm, "--wasm-exec", exec}, "x.wasm: web: site: the wasm binary (8 bytes) is not WebAssembly"},
		{[]string{"--format", "web", "--out", site, "--wasm", wasm, "--wasm-exec", notWasm}, "does not define globalThis.Go"},
		{[]string{"--format", "web", "--out", file, "--wasm", wasm, "--wasm-exec", exec}, "is a file, not a directory"},
	} {
		_, errs, code := runCLI(t, "", append([]string{"export"}, c.args...)...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("export %q: code %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
	if _, errs, code := runCLI(t, "", "export", "--format", "web", "--out", site, "--wasm", wasm, "--wasm-exec", exec); code != 0 {
		t.Fatal(errs)
	}
	if b, _ := os.ReadFile(filepath.Join(site, "yinsh.wasm")); string(b) != "\x00asm\x01\x00\x00\x00" {
		t.Error("the site's yinsh.wasm is not --wasm")
	}
	_, errs, code := runCLI(t, "", "export", "--format", "web", "--out", site, "--wasm", wasm, "--wasm-exec", exec)
	if code == 0 || !strings.Contains(errs, "already exists (pass --force") {
		t.Errorf("a second export without --force: code %d, %q", code, errs)
	}
	if _, errs, code := runCLI(t, "", "export", "--format", "web", "--out", site, "--wasm", wasm, "--wasm-exec", exec, "--force"); code != 0 {
		t.Error(errs)
	}
}

// TestExportWebBuilds builds the wasm binary from the source tree (the test runs in it) with the
// toolchain's wasm_exec.js.
func TestExportWebBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/yinsh-wasm")
	}
	site := filepath.Join(t.TempDir(), "site")
	out, errs, code := runCLI(t, "", "export", "--format", "web", "--out", site)
	if code != 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(out, "yinsh.wasm") {
		t.Errorf("output %q", out)
	}
	for _, name := range []string{"index.html", "worker.js", "wasm_exec.js", "yinsh.wasm"} {
		if fi, err := os.Stat(filepath.Join(site, name)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(site, "yinsh.wasm")); len(b) < 1<<20 || string(b[:4]) != "\x00asm" {
		t.Errorf("yinsh.wasm: %d bytes, not the agent", len(b))
	}
}
