package datasets

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

const boardspaceDir = "../env/testdata/boardspace"

func TestFromSGFBoardspaceRecords(t *testing.T) {
	files, err := SGFFiles(boardspaceDir)
	if err != nil || len(files) != 5 {
		t.Fatalf("want 5 records, got %v (%v)", files, err)
	}
	var recs []*Record
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := FromSGF(f, data)
		if err != nil {
			t.Fatal(err)
		}
		g, err := env.ReadSGF(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Actions, g.Actions) || r.Outcome != g.Outcome() || r.Outcome == env.Ongoing || r.Variant != g.Variant {
			t.Fatalf("%s: record does not match the SGF (outcome %s vs %s)", f, r.Outcome, g.Outcome())
		}
		if r.Generator != "sgf:"+filepath.Base(f) {
			t.Fatalf("generator %q", r.Generator)
		}
		for i, tg := range r.Targets {
			if len(tg.Policy) != 1 || tg.Policy[0] != (PolicyEntry{Action: uint16(r.Actions[i]), Prob: 1}) || tg.RootWDL != [3]float32{} {
				t.Fatalf("%s ply %d: target %+v, want one-hot on the played action", f, i+1, tg)
			}
		}
		again, _ := FromSGF("elsewhere/"+filepath.Base(f), data)
		if again.ID != r.ID {
			t.Fatal("the ID depends on more than the file's bytes")
		}
		recs = append(recs, r)
	}
	// Through a shard and into a window.
	dir := t.TempDir()
	writeShard(t, dir, 2, recs)
	got, err := ReadDir(dir)
	if err != nil || !reflect.DeepEqual(got, recs) {
		t.Fatalf("shard round trip: %v", err)
	}
	w := newTestWindow(t, WindowOptions{}, recs)
	if w.Games() != 5 {
		t.Fatalf("window holds %d games", w.Games())
	}
}

func TestFromSGFErrors(t *testing.T) {
	files, _ := SGFFiles(boardspaceDir)
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), "place wr  G 2", "place wr  Z 2", 1)
	_, err = FromSGF("bad.sgf", []byte(bad))
	if err == nil || !strings.HasPrefix(err.Error(), "bad.sgf: sgf line ") {
		t.Fatalf("got %v, want an error naming the file and line", err)
	}
	if _, err := ReadSGFFile(filepath.Join(t.TempDir(), "missing.sgf")); err == nil {
		t.Fatal("missing file read")
	}
	dir := t.TempDir()
	for _, name := range []string{"b.SGF", "a.sgf", "c.txt"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	got, _ := SGFFiles(dir)
	if len(got) != 2 || filepath.Base(got[0]) != "a.sgf" || filepath.Base(got[1]) != "b.SGF" {
		t.Fatalf("SGFFiles %v", got)
	}
}
