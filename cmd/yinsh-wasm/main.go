//go:build js && wasm

// Command yinsh-wasm is the agent of the web export (yinsh export --format web): yinsh serve's
// HTTP handler (package web) run inside a Web Worker, with no network and no server. The worker
// (web/site/worker.js) forwards the page's API requests as yinshRequest(id, method, path, type,
// body); each is served by web.Server.ServeHTTP into a recorder on its own goroutine, and the answer
// is posted back to the page as {id, status, type, body}. Searches run in the worker, so the board
// never freezes.
//
// The networks are the reference networks embedded in every build, one per variant (package nets):
// the level:N and reference players read the one of the game's variant through nets.Path, which the
// worker's in-memory file system serves.
package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall/js"

	"github.com/yinsh-zero/yinsh/engine"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/selfplay"
	"github.com/yinsh-zero/yinsh/web"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	post := js.Global().Get("postMessage")
	// the agent and the default variant: the worker's yinshPlayer and yinshVariant (the page's
	// ?player= and ?variant=), else the reference network (of each game's variant)
	variant := env.Standard
	if v := js.Global().Get("yinshVariant"); v.Type() == js.TypeString && v.String() != "" {
		var err error
		if variant, err = env.ParseVariant(v.String()); err != nil {
			post.Invoke(map[string]any{"fatal": "yinsh-wasm: variant: " + err.Error()})
			return
		}
	}
	player := engine.DefaultPlayer(variant)
	if p := js.Global().Get("yinshPlayer"); p.Type() == js.TypeString && p.String() != "" {
		player = p.String()
	}
	srv, err := web.New(web.Options{
		Player: player,
		Players: selfplay.PlayerOptions{
			Search:   selfplay.Search{Sims: engine.DefaultSims, LeavesInFlight: 8},
			Variant:  variant,
			Parallel: 1,
			Load:     func(path string) (model.Net, error) { return gonum.Load(path) },
		},
		Seed:     1,
		Searches: 1, // one thread: a second search would only wait
		Logger:   log,
	})
	if err != nil {
		post.Invoke(map[string]any{"fatal": "yinsh-wasm: " + err.Error()})
		return
	}
	js.Global().Set("yinshRequest", js.FuncOf(func(this js.Value, args []js.Value) any {
		if len(args) != 5 {
			return nil
		}
		id, method, path, ctype, body := args[0].Int(), args[1].String(), args[2].String(), args[3].String(), args[4].String()
		// a callback must not block the worker's event loop: the search runs on its own goroutine
		go func() {
			status, typ, out := serve(srv, method, path, ctype, body)
			post.Invoke(map[string]any{"id": id, "status": status, "type": typ, "body": out})
		}()
		return nil
	}))
	post.Invoke(map[string]any{"ready": true})
	select {}
}

// serve answers one request of the page with the server's handler.
func serve(srv http.Handler, method, path, ctype, body string) (int, string, string) {
	if !strings.HasPrefix(path, "/") {
		return http.StatusBadRequest, "application/json", fmt.Sprintf(`{"error":%q}`, "path "+path+": want an absolute path")
	}
	req, err := http.NewRequest(method, "http://yinsh.local"+path, strings.NewReader(body))
	if err != nil {
		return http.StatusBadRequest, "application/json", fmt.Sprintf(`{"error":%q}`, err.Error())
	}
	req.RemoteAddr = "127.0.0.1:1"
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec.Code, rec.Header().Get("Content-Type"), rec.Body.String()
}
