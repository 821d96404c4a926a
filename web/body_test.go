package web

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/engine"
)

// rawExchange sends head and body on a fresh connection to ts (closing its write side after when
// closeWrite), then reads the answer. A guard deadline fails a hang.
func rawExchange(t *testing.T, addr, head, body string, closeWrite bool) (*http.Response, []byte, time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second)) // a guard against a hang
	start := time.Now()
	if _, err := io.WriteString(c, head+body); err != nil {
		t.Fatal(err)
	}
	if closeWrite {
		c.(*net.TCPConn).CloseWrite()
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to %q: %v", head, err)
	}
	data, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil && len(data) == 0 {
		t.Fatalf("answer to %q: %v", head, err)
	}
	return res, data, time.Since(start)
}

// noAddress fails when an answer names a socket address.
func noAddress(t *testing.T, what string, data []byte) {
	t.Helper()
	for _, a := range []string{"127.0.0.1:", "[::1]", "->", "tcp "} {
		if strings.Contains(string(data), a) {
			t.Fatalf("%s: the answer names an address (%q): %s", what, a, data)
		}
	}
}

// TestRequestBodies: a declared body over the limit is refused before it is read (413), a body
// that stalls is a 408 once the body deadline passes, one that ends before its declared length
// (or is malformed chunked encoding) is a 400; none is a 500 and no answer names an address.
func TestRequestBodies(t *testing.T) {
	const timeout = 300 * time.Millisecond
	_, ts := newTestServer(t, Options{MaxBody: 1024, BodyTimeout: timeout})
	addr := ts.Listener.Addr().String()
	post := func(path string, length int, extra string) string {
		h := "POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n"
		if length >= 0 {
			h += "Content-Length: " + itoa(length) + "\r\n"
		}
		return h + extra + "\r\n"
	}
	for _, c := range []struct {
		name       string
		head, body string
		closeWrite bool
		status     int
		contains   string
	}{
		// nothing of the body is sent: an answer at all shows the server did not wait for it
		{"declared too large", post("/api/analyze", 1<<30, ""), "", false, 413, "larger than 1024"},
		{"declared too large, game", post("/api/games", 1025, ""), "", false, 413, "larger than 1024"},
		{"stalled", post("/api/analyze", 100, ""), `{"moves":`, false, 408, "not received"},
		{"stalled, nothing sent", post("/api/games", 10, ""), "", false, 408, "not received"},
		{"short", post("/api/analyze", 100, ""), `{"moves":["e5"]}`, true, 400, "ends after"},
		{"short, replay", post("/api/replay", 1000, ""), `{"tokens": "e5 f6"`, true, 400, "ends after"},
		{"bad chunks", post("/api/replay", -1, "Transfer-Encoding: chunked\r\n"), "zz\r\n{}\r\n0\r\n\r\n", true, 400, "request body"},
	} {
		res, data, took := rawExchange(t, addr, c.head, c.body, c.closeWrite)
		noAddress(t, c.name, data)
		var e apiError
		if res.StatusCode != c.status || json.Unmarshal(data, &e) != nil || e.Status != c.status || !strings.Contains(e.Error, c.contains) {
			t.Fatalf("%s: %d %s: want %d saying %q", c.name, res.StatusCode, data, c.status, c.contains)
		}
		if c.status == 408 && took < timeout {
			t.Fatalf("%s: answered after %v, before the body deadline %v", c.name, took, timeout)
		}
	}
}

// TestBodyDeadlineEndsWithBody: the body's read deadline does not outlive the body: a request
// without one (the empty object) whose search runs past the deadline is not cancelled (the server's
// background read on the connection would time out and cancel the request's context).
func TestBodyDeadlineEndsWithBody(t *testing.T) {
	_, ts := newTestServer(t, Options{Player: "rollout:4000", BodyTimeout: 50 * time.Millisecond})
	for _, body := range []any{"", map[string]any{"sims": 4000}} {
		var out engine.AnalysisJSON
		callJSON(t, nil, "POST", ts.URL+"/api/analyze", body, 200, &out)
		if out.Sims < 4000 || out.TimeMS < 50 {
			t.Logf("%d sims in %v ms: the search ended before the deadline, proving nothing", out.Sims, out.TimeMS)
		}
	}
}
