package env

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBoardspaceRecords(t *testing.T) {
	files, err := filepath.Glob("testdata/boardspace/*.sgf")
	if err != nil || len(files) != 5 {
		t.Fatalf("want 5 records, got %d (%v)", len(files), err)
	}
	wins, resigns := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := ReadSGF(strings.NewReader(string(data)))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		want := g.RecordedWinner()
		if want < 0 {
			t.Errorf("%s: cannot tell the recorded winner from RE[%s]", f, g.Result)
			continue
		}
		if got := g.Outcome(); got != winnerOutcome(Color(want)) {
			t.Errorf("%s: replayed outcome %s, record says %s won (%s)", f, got, Color(want), g.Result)
		}
		if g.Final.IsTerminal() {
			wins++
		} else if g.Resigned >= 0 {
			resigns++
		}
		t.Logf("%s: %d actions, outcome %s", filepath.Base(f), len(g.Actions), g.Outcome())
	}
	if wins != 3 || resigns != 2 {
		t.Errorf("got %d board wins and %d resignations, want 3 and 2", wins, resigns)
	}
}
