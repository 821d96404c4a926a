package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/yinsh-zero/yinsh/web"
)

// wasmPackage is the command the web export's wasm binary is built from.
const wasmPackage = "github.com/yinsh-zero/yinsh/cmd/yinsh-wasm"

const wasmHint = "build it with GOOS=js GOARCH=wasm go build -o yinsh.wasm ./cmd/yinsh-wasm in the source tree and pass --wasm yinsh.wasm"

// exportWebRun writes the static site of `yinsh export --format web`.
func exportWebRun(opts *ExportOptions) error {
	if fi, err := os.Stat(opts.Path); err == nil && !fi.IsDir() {
		return fmt.Errorf("--out %s is a file, not a directory", opts.Path)
	}
	for _, name := range web.SiteFileNames {
		if err := checkOverwrite(filepath.Join(opts.Path, name), opts.Force); err != nil {
			return err
		}
	}
	var files web.SiteFiles
	var err error
	if opts.Wasm != "" {
		if files.Wasm, err = os.ReadFile(opts.Wasm); err != nil {
			return fmt.Errorf("--wasm: %w", err)
		}
	} else if files.Wasm, err = buildWasm(); err != nil {
		return err
	}
	if opts.WasmExec != "" {
		if files.WasmExec, err = os.ReadFile(opts.WasmExec); err != nil {
			return fmt.Errorf("--wasm-exec: %w", err)
		}
	} else if files.WasmExec, err = toolchainWasmExec(); err != nil {
		return err
	}
	if err := web.WriteSite(opts.Path, files); err != nil {
		if opts.Wasm != "" && !bytes.HasPrefix(files.Wasm, []byte("\x00asm")) {
			return fmt.Errorf("--wasm %s: %w", opts.Wasm, err)
		}
		return err
	}
	var sizes []string
	for _, name := range web.SiteFileNames {
		if fi, err := os.Stat(filepath.Join(opts.Path, name)); err == nil {
			sizes = append(sizes, fmt.Sprintf("%s %s", name, humanBytes(fi.Size())))
		}
	}
	fmt.Fprintf(opts.Out, "wrote %s (web: %s); serve it with any static file server, e.g. python3 -m http.server -d %s\n",
		opts.Path, strings.Join(sizes, ", "), opts.Path)
	return nil
}

// goTool is the go command on the PATH.
func goTool() (string, error) {
	p, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("--format web: no go toolchain on the PATH to build the wasm binary with; %s", wasmHint)
	}
	return p, nil
}

// sourceRoot is the directory of this module's go.mod at or above the working directory.
func sourceRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/yinsh-zero/yinsh\n")) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("--format web: not in the yinsh source tree (no go.mod of github.com/yinsh-zero/yinsh at or above the working directory) to build the wasm binary from; " + wasmHint)
		}
		dir = up
	}
}

// buildWasm builds cmd/yinsh-wasm for js/wasm from the source tree.
func buildWasm() ([]byte, error) {
	goBin, err := goTool()
	if err != nil {
		return nil, err
	}
	root, err := sourceRoot()
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "yinsh-wasm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "yinsh.wasm")
	cmd := exec.Command(goBin, "build", "-trimpath", "-o", out, wasmPackage)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("--format web: GOOS=js GOARCH=wasm go build %s in %s: %v\n%s", wasmPackage, root, err, msg)
	}
	return os.ReadFile(out)
}

// toolchainWasmExec reads wasm_exec.js of the go toolchain on the PATH.
func toolchainWasmExec() ([]byte, error) {
	goBin, err := goTool()
	if err != nil {
		return nil, fmt.Errorf("%w (or pass --wasm-exec, the wasm_exec.js of the Go that built --wasm)", err)
	}
	root, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("--format web: go env GOROOT: %v", err)
	}
	var tried []string
	for _, sub := range []string{"lib/wasm", "misc/wasm"} { // Go 1.24 moved it to lib/wasm
		p := filepath.Join(strings.TrimSpace(string(root)), sub, "wasm_exec.js")
		if b, err := os.ReadFile(p); err == nil {
			return b, nil
		}
		tried = append(tried, p)
	}
	return nil, fmt.Errorf("--format web: no wasm_exec.js in the go toolchain (tried %s); pass --wasm-exec", strings.Join(tried, ", "))
}
