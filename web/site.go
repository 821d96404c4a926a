package web

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/yinsh-zero/yinsh/internal/atomicfile"
)

// The web export's own scripts: the page's shim (window.yinshFetch) and the worker that runs the
// agent.
//
//go:embed site
var siteFS embed.FS

// SiteFiles are the build products a static site ships beside the page.
type SiteFiles struct {
	// Wasm is cmd/yinsh-wasm built for GOOS=js GOARCH=wasm: this package's Server, the rules, the
	// search and the reference network.
	Wasm []byte
	// WasmExec is wasm_exec.js of the Go toolchain that built Wasm (GOROOT/lib/wasm).
	WasmExec []byte
}

// SitePage is the static site's index.html: the page yinsh serve serves at "/" (the same
// index.html, style and scripts, inlined), with the shim that answers app.js's API requests from
// the worker and a Content-Security-Policy that allows nothing from elsewhere. The /api/info
// answer is not inlined: the page asks the worker for it.
func SitePage() []byte {
	p := buildPage([]string{siteScript("shim.js")})
	policy := fmt.Sprintf("default-src 'self'; img-src 'self' data:; style-src 'self' %s; script-src 'self' %s; connect-src 'self'; worker-src 'self'",
		p.styleHash, strings.Join(p.scriptHashes, " "))
	meta := `<meta charset="utf-8">` + "\n" + `<meta http-equiv="Content-Security-Policy" content="` + policy + `">`
	head := bytes.Replace(p.head, []byte(`<meta charset="utf-8">`), []byte(meta), 1)
	if bytes.Equal(head, p.head) {
		panic(`web: static/index.html lacks <meta charset="utf-8">`)
	}
	return bytes.Join([][]byte{head, []byte("null"), p.tail}, nil)
}

func siteScript(name string) string {
	b, err := siteFS.ReadFile("site/" + name)
	if err != nil {
		panic(err) // the embed above always holds site/
	}
	return string(b)
}

// SiteFileNames are the files WriteSite writes, in that order.
var SiteFileNames = []string{"yinsh.wasm", "wasm_exec.js", "worker.js", "index.html"}

// WriteSite writes the static site of the web export into dir (made if missing): index.html
// (SitePage), worker.js, wasm_exec.js and yinsh.wasm, each atomically. Any static file server
// serves it; the page makes no request outside it.
func WriteSite(dir string, f SiteFiles) error {
	if !bytes.HasPrefix(f.Wasm, []byte("\x00asm")) {
		return fmt.Errorf("web: site: the wasm binary (%d bytes) is not WebAssembly (no \\0asm header)", len(f.Wasm))
	}
	if !bytes.Contains(f.WasmExec, []byte("globalThis.Go = class")) {
		return fmt.Errorf("web: site: wasm_exec.js (%d bytes) does not define globalThis.Go: not the Go toolchain's wasm_exec.js", len(f.WasmExec))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("web: site: %w", err)
	}
	files := map[string][]byte{
		"yinsh.wasm":   f.Wasm,
		"wasm_exec.js": f.WasmExec,
		"worker.js":    []byte(siteScript("worker.js")),
		"index.html":   SitePage(),
	}
	for _, name := range SiteFileNames {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), files[name]); err != nil {
			return fmt.Errorf("web: site: %w", err)
		}
	}
	return nil
}
