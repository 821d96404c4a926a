package web

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

// The browser app: plain JavaScript and SVG, no library and no build step.
//
//go:embed static
var staticFS embed.FS

func staticHandler() http.Handler {
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
		if r.URL.Path != "/" && !strings.Contains(r.URL.Path[1:], "/") {
			if _, err := fs.Stat(sub, r.URL.Path[1:]); err != nil {
				writeError(w, http.StatusNotFound, "no page %s", r.URL.Path)
				return
			}
		}
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
