package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestPlainLines(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, 4, "games", time.Hour)
	b.Add(1, "a")
	b.Add(1, "b")
	b.Add(2, "c")
	b.Finish()
	out := buf.String()
	// first line (interval from zero time), the completion line, nothing in between, no duplicate at Finish
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "games: 1/4 (25%) a") || !strings.HasPrefix(lines[1], "games: 4/4 (100%) c") {
		t.Fatalf("%q", out)
	}
}
