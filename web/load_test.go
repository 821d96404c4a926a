package web

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/engine"
	"github.com/yinsh-zero/yinsh/internal/testenv"
)

// loopbackClient returns a client whose connections come from the loopback address 127.0.0.k, so
// that the server sees k as its own client (Linux routes all of 127.0.0.0/8 to loopback); where
// that address cannot be bound it falls back to the default source address.
func loopbackClient(k int) (*http.Client, bool) {
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(k))}
	d := &net.Dialer{LocalAddr: local, Timeout: 5 * time.Second}
	own := true
	if c, err := d.Dial("tcp", "127.0.0.1:1"); err != nil && isBindError(err) {
		d.LocalAddr, own = nil, false
	} else if c != nil {
		c.Close()
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}}, own
}

func isBindError(err error) bool {
	var op *net.OpError
	if e, ok := err.(*net.OpError); ok {
		op = e
	}
	return op != nil && op.Op == "dial" && op.Source != nil && !op.Timeout() && fmt.Sprint(op.Err) == "bind: cannot assign requested address"
}

// TestLoad100Clients: 100 clients at once, each its own loopback address, play the start of a
// blitz game, ask for an analysis and download the game: every answer is a success. The default
// limits apply (2 searches at once, 256 waiting, 16 per client).
func TestLoad100Clients(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "random"})
	const clients = 100
	var mu sync.Mutex
	var lat []time.Duration
	shared := 0 // clients that could not have an address of their own
	errs := make(chan error, clients)
	start := time.Now()
	var wg sync.WaitGroup
	for k := range clients {
		wg.Go(func() {
			c, own := loopbackClient(2 + k)
			if !own {
				mu.Lock()
				shared++
				mu.Unlock()
			}
			do := func(method, path string, body any, want int, out any) bool {
				t0 := time.Now()
				status, data := call(t, c, method, ts.URL+path, body)
				mu.Lock()
				lat = append(lat, time.Since(t0))
				mu.Unlock()
				if status != want {
					errs <- fmt.Errorf("client %d: %s %s: %d %s", k, method, path, status, data)
					return false
				}
				if out != nil {
					return decodeInto(data, out) == nil
				}
				return true
			}
			var g gameView
			if !do("GET", "/", nil, 200, nil) || !do("GET", "/api/info", nil, 200, nil) ||
				!do("POST", "/api/games", map[string]string{"variant": "blitz"}, 201, &g) {
				return
			}
			for i := 0; i < 3; i++ {
				if !do("POST", "/api/games/"+g.ID+"/play", map[string]string{"action": g.Legal[(k+i)%len(g.Legal)]}, 200, &g) ||
					!do("POST", "/api/games/"+g.ID+"/agent", nil, 200, &g) {
					return
				}
			}
			if !do("GET", "/api/games/"+g.ID+"/legal", nil, 200, nil) ||
				!do("POST", "/api/analyze", map[string]any{"moves": g.Moves, "variant": "blitz", "player": "rollout:20", "sims": 20}, 200, nil) ||
				!do("GET", "/api/games/"+g.ID+"/sgf", nil, 200, nil) ||
				!do("DELETE", "/api/games/"+g.ID, nil, 204, nil) {
				return
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	slices.Sort(lat)
	t.Logf("%d clients (%d sharing 127.0.0.1), %d requests in %v: latency p50 %v, p99 %v, max %v", clients, shared, len(lat), time.Since(start).Round(time.Millisecond),
		lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1])
	if len(lat) != clients*13 {
		t.Fatalf("%d requests answered, want %d", len(lat), clients*13)
	}
}

// timingTests reports whether tests assert how long things take (testenv.Timing). The benchmarks
// below measure the same without asserting.
func timingTests() bool { return testenv.Timing() }

// TestPageLoad: the page and its three files from loopback, fetched one after the other as a
// browser's first visit does, all answered; with YINSH_TIMING_TESTS=1, well under 200 ms.
func TestPageLoad(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	var times []time.Duration
	for range 20 {
		t0 := time.Now()
		for _, p := range []string{"/", "/style.css", "/board.js", "/app.js", "/api/info"} {
			if status, _ := call(t, nil, "GET", ts.URL+p, nil); status != 200 {
				t.Fatalf("%s: %d", p, status)
			}
		}
		times = append(times, time.Since(t0))
	}
	slices.Sort(times)
	t.Logf("page load (5 requests): median %v, max %v", times[len(times)/2], times[len(times)-1])
	if timingTests() && times[len(times)/2] > 200*time.Millisecond {
		t.Fatalf("page load median %v, want under 200 ms", times[len(times)/2])
	}
}

// TestAnalysisOverhead: what an analysis request costs beyond its search (the client's round trip
// less the search's own time_ms), over loopback; with YINSH_TIMING_TESTS=1, under 5 ms (median of
// 100).
func TestAnalysisOverhead(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "rollout:1"})
	moves := []string{"e5", "f6", "e6", "f7", "e7", "f8", "e8", "f9", "d4", "g6"}
	var over []time.Duration
	var search []float64
	for range 100 {
		t0 := time.Now()
		var a engine.AnalysisJSON
		callJSON(t, nil, "POST", ts.URL+"/api/analyze", map[string]any{"moves": moves, "variant": "blitz", "sims": 1}, 200, &a)
		rt := time.Since(t0)
		over = append(over, rt-time.Duration(a.TimeMS*float64(time.Millisecond)))
		search = append(search, a.TimeMS)
	}
	slices.Sort(over)
	slices.Sort(search)
	t.Logf("analysis overhead beyond the search: median %v, p90 %v (search itself median %.3f ms)", over[50], over[90], search[50])
	if timingTests() && over[50] > 5*time.Millisecond {
		t.Fatalf("median overhead %v, want under 5 ms", over[50])
	}
}

// BenchmarkPageLoad measures the page and its files, fetched one after the other from loopback.
func BenchmarkPageLoad(b *testing.B) {
	_, ts := newTestServer(b, Options{})
	for b.Loop() {
		for _, p := range []string{"/", "/style.css", "/board.js", "/app.js", "/api/info"} {
			if status, _ := call(b, nil, "GET", ts.URL+p, nil); status != 200 {
				b.Fatalf("%s: %d", p, status)
			}
		}
	}
}

// BenchmarkAnalysisOverhead measures an analysis request of one simulation over loopback, and
// reports what it costs beyond the search (overhead-ms/op).
func BenchmarkAnalysisOverhead(b *testing.B) {
	_, ts := newTestServer(b, Options{Player: "rollout:1"})
	moves := []string{"e5", "f6", "e6", "f7", "e7", "f8", "e8", "f9", "d4", "g6"}
	var over time.Duration
	for b.Loop() {
		t0 := time.Now()
		var a engine.AnalysisJSON
		callJSON(b, nil, "POST", ts.URL+"/api/analyze", map[string]any{"moves": moves, "variant": "blitz", "sims": 1}, 200, &a)
		over += time.Since(t0) - time.Duration(a.TimeMS*float64(time.Millisecond))
	}
	b.ReportMetric(float64(over.Microseconds())/1000/float64(b.N), "overhead-ms/op")
}
