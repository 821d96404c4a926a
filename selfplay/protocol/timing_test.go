package protocol_test

import (
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/internal/testenv"
)

// timing fails the test when took exceeds limit, but only under YINSH_TIMING_TESTS=1; otherwise it
// logs the figure.
func timing(t *testing.T, what string, took, limit time.Duration) {
	t.Helper()
	if !testenv.Timing() {
		t.Logf("%s took %v (limit %v checked with YINSH_TIMING_TESTS=1)", what, took, limit)
		return
	}
	if took > limit {
		t.Errorf("%s took %v, want at most %v", what, took, limit)
	}
}

// within runs f and fails the test if it has not returned after limit: a hang detector, with a
// limit far above any healthy duration, not a timing check.
func within(t *testing.T, what string, limit time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("%s: still running after %v (hung)", what, limit)
	}
}

// waitFor polls cond until it holds, failing the test after 30 s: it waits for an event that the
// test cannot be told of directly (what a child process printed), never for a fixed time.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s after 30 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
