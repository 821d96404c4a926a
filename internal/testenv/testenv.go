// Package testenv holds the switches the tests of every package share. Only tests import it.
package testenv

import (
	"bytes"
	"os"
	"sync"
	"testing"
	"time"
)

// TimingVar is the environment variable that turns on assertions about wall-clock durations. Tests
// check behaviour alone by default, so that a loaded machine cannot fail `go test ./...`; on a quiet
// machine YINSH_TIMING_TESTS=1 also checks how long things take. Benchmarks measure the same figures
// without asserting them.
const TimingVar = "YINSH_TIMING_TESTS"

// Timing reports whether wall-clock assertions are on (TimingVar=1).
func Timing() bool { return os.Getenv(TimingVar) == "1" }

// SkipUnlessTiming skips a test that measures the wall clock and nothing else unless Timing.
func SkipUnlessTiming(t testing.TB) {
	t.Helper()
	if !Timing() {
		t.Skip("measures the wall clock: set " + TimingVar + "=1 to run it")
	}
}

// SyncBuffer is a bytes.Buffer safe for concurrent writes (a logger's, a child process's output)
// and a test's reads.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// FakeClock is a clock that moves only when told (Advance): timed code that reads Now runs
// deterministically under it.
type FakeClock struct {
	mu sync.Mutex
	t  time.Time
}

// NewFakeClock returns a clock standing at t.
func NewFakeClock(t time.Time) *FakeClock { return &FakeClock{t: t} }

// Now returns the clock's time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
