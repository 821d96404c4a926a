//go:build unix

package engine

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe given as the player is refused at once: nothing opens it (an open would wait for a
// writer forever).
func TestPlayerNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	e := newEngine(t, Options{Player: "random"})
	defer e.Close()
	done := make(chan string, 1)
	go func() {
		_, _, text, _ := e.Exec("set player " + fifo)
		done <- text
	}()
	select {
	case text := <-done:
		if !strings.Contains(text, "not a regular file") {
			t.Errorf("set player FIFO: %q", text)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("set player FIFO blocks")
	}
}
