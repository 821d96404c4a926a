package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
)

// The browser app: plain JavaScript and SVG, no library and no build step.
//
//go:embed static
var staticFS embed.FS

// The page as served at "/": index.html with style.css and the two scripts inlined, so that a first
// visit costs one request instead of five (the separate files are still served for other clients),
// and the server's /api/info answer inlined as a JSON data block. The inlined style and scripts are
// allowed by their hashes in the Content-Security-Policy (csp), which otherwise allows nothing
// inline.
var (
	pageHead, pageTail []byte // the page before and after the info JSON
	csp                string
)

func init() {
	p := buildPage(nil)
	pageHead, pageTail = p.head, p.tail
	csp = fmt.Sprintf("default-src 'self'; img-src 'self' data:; style-src 'self' %s; script-src 'self' %s; connect-src 'self'; frame-ancestors 'none'",
		p.styleHash, strings.Join(p.scriptHashes, " "))
}

// page is index.html assembled: head and tail around the info JSON, and the hashes of the inlined
// style and scripts for a Content-Security-Policy.
type page struct {
	head, tail   []byte
	styleHash    string
	scriptHashes []string
}

func readStatic(name string) string {
	b, err := fs.ReadFile(staticFS, "static/"+name)
	if err != nil {
		panic(err) // the embed above always holds static/
	}
	return string(b)
}

func cspHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// buildPage inlines style.css, the scripts pre (the web export's shim) and then board.js and
// app.js into index.html.
func buildPage(pre []string) page {
	html, style := readStatic("index.html"), readStatic("style.css")
	scripts := append(append([]string(nil), pre...), readStatic("board.js"), readStatic("app.js"))
	mustReplace := func(html, old, new string) string {
		if !strings.Contains(html, old) {
			panic("web: static/index.html lacks " + old)
		}
		return strings.Replace(html, old, new, 1)
	}
	html = mustReplace(html, `<link rel="stylesheet" href="style.css">`, "<style>"+style+"</style>")
	html = mustReplace(html, `<script src="board.js" defer></script>`+"\n", "")
	html = mustReplace(html, `<script src="app.js" defer></script>`+"\n", "")
	p := page{styleHash: cspHash(style)}
	var body strings.Builder
	for _, s := range scripts {
		if strings.Contains(s, "</script") {
			panic("web: a script contains </script")
		}
		body.WriteString("<script>" + s + "</script>\n")
		p.scriptHashes = append(p.scriptHashes, cspHash(s))
	}
	head, tail, ok := strings.Cut(html, "</body>")
	if !ok {
		panic("web: static/index.html lacks </body>")
	}
	p.head = []byte(head + `<script id="info-json" type="application/json">`)
	p.tail = []byte("</script>\n" + body.String() + "</body>" + tail)
	return p
}

// staticHandler serves the page (with info, the /api/info answer, inlined; it is fixed when the
// server starts) and the embedded files.
func staticHandler(info []byte) http.Handler {
	// json.Marshal escapes <, > and &, so the JSON cannot close the data block
	page := bytes.Join([][]byte{pageHead, info, pageTail}, nil)
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(err) // the embed above always holds static/
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "method %s not allowed on %s", r.Method, r.URL.Path)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		if r.URL.Path == "/" || r.URL.Path == "/index.html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Length", fmt.Sprint(len(page)))
			if r.Method == http.MethodGet {
				w.Write(page)
			}
			return
		}
		if !strings.Contains(r.URL.Path[1:], "/") {
			if _, err := fs.Stat(sub, r.URL.Path[1:]); err != nil {
				writeError(w, http.StatusNotFound, "no page %s", r.URL.Path)
				return
			}
		}
		files.ServeHTTP(w, r)
	})
}
