package parquet

import (
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	parquetgo "github.com/parquet-go/parquet-go"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
)

const boardspaceDir = "../../env/testdata/boardspace"

// fixtureRecords returns the boardspace records, the first three given search-like targets (a
// policy over some legal actions at three positions in four, none at the fourth, a root WDL at every
// other one), the
// fourth cut in half and adjudicated, the fifth cut to 20 plies and unfinished.
func fixtureRecords(t *testing.T) []*datasets.Record {
	t.Helper()
	files, err := datasets.SGFFiles(boardspaceDir)
	if err != nil || len(files) < 5 {
		t.Fatalf("boardspace records %v, %v", files, err)
	}
	var recs []*datasets.Record
	for k, f := range files[:5] {
		r, err := datasets.ReadSGFFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if k < 3 {
			s := env.NewState(r.Variant)
			var legal []env.Action
			for i, a := range r.Actions {
				legal = s.LegalActions(legal[:0])
				tg := &r.Targets[i]
				tg.Policy = nil // one position in four is not a training target
				if n := min(len(legal), 1+(i+k)%5); (i+k)%4 != 0 {
					total := float32(n * (n + 1) / 2)
					for j := range n {
						tg.Policy = append(tg.Policy, datasets.PolicyEntry{Action: uint16(legal[j]), Prob: float32(j+1) / total})
					}
				}
				if i%2 == 0 {
					tg.RootWDL = [3]float32{0.5, 0.25, 0.25}
				}
				if err := s.ApplyAction(a); err != nil {
					t.Fatal(err)
				}
			}
		}
		switch k {
		case 3:
			r.Actions, r.Targets, r.Outcome = r.Actions[:len(r.Actions)/2], r.Targets[:len(r.Targets)/2], env.WhiteWins
		case 4:
			r.Actions, r.Targets, r.Outcome = r.Actions[:20], r.Targets[:20], env.Ongoing
		}
		recs = append(recs, r)
	}
	return recs
}

// exportFixture writes the fixture records into a shard directory and exports it; it returns the
// records and the Parquet path.
func exportFixture(t *testing.T) ([]*datasets.Record, string) {
	t.Helper()
	dir := t.TempDir()
	recs := fixtureRecords(t)
	w, err := datasets.NewWriter(dir, datasets.WriterOptions{GamesPerShard: 2, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "positions.parquet")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Export(f, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, r := range recs {
		total += len(r.Actions)
	}
	if n != int64(total) {
		t.Fatalf("exported %d rows, want %d", n, total)
	}
	return recs, out
}

func TestParquetRowsMeaning(t *testing.T) {
	recs, path := exportFixture(t)
	rows, err := parquetgo.ReadFile[Row](path)
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for gi, r := range recs {
		s := env.NewState(r.Variant)
		for i, a := range r.Actions {
			row := rows[k]
			k++
			if row.Game != int64(gi) || row.GameID != r.ID || row.Ply != int32(i) || row.Variant != r.Variant.String() ||
				row.Generator != r.Generator || row.Position != s.Text() || row.Action != a.String() || row.ActionID != int32(a) ||
				row.Outcome != r.Outcome.String() || row.Target != r.Targets[i].IsTarget() {
				t.Fatalf("game %d ply %d: row %+v", gi, i, row)
			}
			if want := map[env.Color]string{env.White: "w", env.Black: "b"}[s.CurrentPlayer()]; row.Side != want {
				t.Fatalf("side %q, want %q", row.Side, want)
			}
			if len(row.PolicyActions) != len(r.Targets[i].Policy) || len(row.RootWDL) != 3 || row.RootWDL[1] != r.Targets[i].RootWDL[1] {
				t.Fatalf("game %d ply %d: policy/root columns %v %v", gi, i, row.PolicyActions, row.RootWDL)
			}
			for j, e := range r.Targets[i].Policy {
				if row.PolicyActions[j] != int32(e.Action) || row.PolicyProbs[j] != e.Prob {
					t.Fatalf("policy entry %d differs", j)
				}
			}
			switch {
			case r.Outcome == env.Ongoing:
				if row.ValueTarget != nil {
					t.Fatalf("unfinished game has value target %v", *row.ValueTarget)
				}
			case row.ValueTarget == nil:
				t.Fatal("missing value target")
			case r.Outcome == env.Draw && *row.ValueTarget != 0,
				r.Outcome == env.WhiteWins && *row.ValueTarget != map[env.Color]float32{env.White: 1, env.Black: -1}[s.CurrentPlayer()],
				r.Outcome == env.BlackWins && *row.ValueTarget != map[env.Color]float32{env.White: -1, env.Black: 1}[s.CurrentPlayer()]:
				t.Fatalf("outcome %s, %s to act: value target %v", r.Outcome, s.CurrentPlayer(), *row.ValueTarget)
			}
			s.ApplyAction(a)
		}
	}
	if k != len(rows) {
		t.Fatalf("%d rows, want %d", len(rows), k)
	}
}

const pyarrowScript = `
import json, sys
import pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
cols = {f.name: str(f.type) for f in t.schema}
rows = t.to_pylist()
print(json.dumps({"types": cols, "num_rows": t.num_rows, "rows": rows}))
`

// TestParquetReadByPyarrow reads the export with pyarrow. It skips when pyarrow is missing, except
// under CI (env CI set), where that is a failure.
func TestParquetReadByPyarrow(t *testing.T) {
	if out, err := exec.Command("python3", "-c", "import pyarrow").CombinedOutput(); err != nil {
		msg := "python3 with pyarrow is needed (pip install pyarrow): " + strings.TrimSpace(string(out)) + " " + err.Error()
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	recs, path := exportFixture(t)
	out, err := exec.Command("python3", "-c", pyarrowScript, path).Output()
	if err != nil {
		t.Fatalf("pyarrow: %v", err)
	}
	var got struct {
		Types   map[string]string
		NumRows int `json:"num_rows"`
		Rows    []map[string]any
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	wantTypes := map[string]string{
		"game": "int64", "game_id": "uint64", "ply": "int32", "variant": "string", "generator": "string",
		"position": "string", "side": "string", "action": "string", "action_id": "int32", "target": "bool",
		"policy_actions": "list<element: int32>", "policy_probs": "list<element: float>",
		"root_wdl": "list<element: float>", "outcome": "string", "value_target": "float",
	}
	for col, want := range wantTypes {
		g := strings.Replace(strings.Replace(got.Types[col], "item:", "element:", 1), " not null", "", 1)
		if g != want && !strings.HasPrefix(g, "dictionary<values="+want) {
			t.Errorf("column %s: pyarrow type %q, want %q", col, got.Types[col], want)
		}
	}
	if len(got.Types) != len(wantTypes) {
		t.Errorf("columns %v", got.Types)
	}
	var want []Row
	for gi, r := range recs {
		rows, err := Rows(int64(gi), r)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, rows...)
	}
	if got.NumRows != len(want) || len(got.Rows) != len(want) {
		t.Fatalf("pyarrow read %d rows, want %d", got.NumRows, len(want))
	}
	for i, w := range want {
		g := got.Rows[i]
		num := func(k string) float64 { v, _ := g[k].(float64); return v }
		if num("game") != float64(w.Game) || num("ply") != float64(w.Ply) || g["position"] != w.Position || g["action"] != w.Action ||
			g["side"] != w.Side || g["outcome"] != w.Outcome || g["generator"] != w.Generator || g["variant"] != w.Variant ||
			g["target"] != w.Target || num("action_id") != float64(w.ActionID) {
			t.Fatalf("row %d: pyarrow %v, want %+v", i, g, w)
		}
		if w.ValueTarget == nil {
			if g["value_target"] != nil {
				t.Fatalf("row %d: value_target %v, want null", i, g["value_target"])
			}
		} else if num("value_target") != float64(*w.ValueTarget) {
			t.Fatalf("row %d: value_target %v, want %v", i, g["value_target"], *w.ValueTarget)
		}
		pa, _ := g["policy_actions"].([]any)
		pp, _ := g["policy_probs"].([]any)
		if len(pa) != len(w.PolicyActions) || len(pp) != len(w.PolicyProbs) {
			t.Fatalf("row %d: policy lists %v %v", i, pa, pp)
		}
		for j := range pa {
			if pa[j].(float64) != float64(w.PolicyActions[j]) || float32(pp[j].(float64)) != w.PolicyProbs[j] {
				t.Fatalf("row %d: policy entry %d: %v %v", i, j, pa[j], pp[j])
			}
		}
		wdl, _ := g["root_wdl"].([]any)
		var gotWDL []float32
		for _, v := range wdl {
			gotWDL = append(gotWDL, float32(v.(float64)))
		}
		if !reflect.DeepEqual(gotWDL, w.RootWDL) {
			t.Fatalf("row %d: root_wdl %v, want %v", i, gotWDL, w.RootWDL)
		}
	}
}
