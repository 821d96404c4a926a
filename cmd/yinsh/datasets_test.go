package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
)

const boardspaceDir = "../../env/testdata/boardspace"

func TestDatasetsImportStatsExport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shards")
	stdout, stderr, code := runCLI(t, "", "datasets", "import-sgf", boardspaceDir, "--out", out, "--games-per-shard", "2")
	if code != 0 || !strings.Contains(stdout, "imported 5 games") || !strings.Contains(stdout, "into 3 shards") {
		t.Fatalf("import: code %d out %q err %q", code, stdout, stderr)
	}
	recs, err := datasets.ReadDir(out)
	if err != nil || len(recs) != 5 {
		t.Fatalf("read back %d records: %v", len(recs), err)
	}
	// A second import into the same directory needs --append.
	_, stderr, code = runCLI(t, "", "datasets", "import-sgf", boardspaceDir, "--out", out)
	if code == 0 || !strings.Contains(stderr, "already holds 3 shards") {
		t.Fatalf("re-import: code %d err %q", code, stderr)
	}

	// Stats, checked against the SGF records replayed by env.
	files, _ := filepath.Glob(boardspaceDir + "/*.sgf")
	var results [4]int
	total, lo, hi := 0, 1<<30, 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		g, err := env.ReadSGF(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		results[g.Outcome()]++
		n := len(g.Actions)
		total, lo, hi = total+n, min(lo, n), max(hi, n)
	}
	stdout, stderr, code = runCLI(t, "", "datasets", "stats", out)
	if code != 0 {
		t.Fatalf("stats: code %d err %q", code, stderr)
	}
	want := []string{
		"shards: 3", "games: 5", fmt.Sprintf("positions: %d", total), fmt.Sprintf("training positions: %d", total),
		fmt.Sprintf("results: white %.3f (%d) black %.3f (%d) draw %.3f (%d)", float64(results[env.WhiteWins])/5, results[env.WhiteWins],
			float64(results[env.BlackWins])/5, results[env.BlackWins], float64(results[env.Draw])/5, results[env.Draw]),
		fmt.Sprintf("length: mean %.1f min %d max %d actions", float64(total)/5, lo, hi),
	}
	for _, w := range want {
		if !strings.Contains(stdout, w+"\n") {
			t.Errorf("stats output lacks %q:\n%s", w, stdout)
		}
	}

	// Export: written atomically, never over an existing file without --force.
	pq := filepath.Join(t.TempDir(), "games.parquet")
	stdout, stderr, code = runCLI(t, "", "datasets", "export", "--format", "parquet", "--in", out, "--out", pq)
	if code != 0 || !strings.Contains(stdout, fmt.Sprintf("wrote %d rows", total)) {
		t.Fatalf("export: code %d out %q err %q", code, stdout, stderr)
	}
	data, err := os.ReadFile(pq)
	if err != nil || !bytes.HasPrefix(data, []byte("PAR1")) || !bytes.HasSuffix(data, []byte("PAR1")) {
		t.Fatalf("not a Parquet file (%d bytes): %v", len(data), err)
	}
	_, stderr, code = runCLI(t, "", "datasets", "export", "--in", out, "--out", pq)
	if code == 0 || !strings.Contains(stderr, pq+" already exists (pass --force to overwrite it)") {
		t.Fatalf("export over an existing file: code %d err %q", code, stderr)
	}
	if _, _, code = runCLI(t, "", "datasets", "export", "--in", out, "--out", pq, "--force"); code != 0 {
		t.Fatal("export --force failed")
	}
	_, stderr, code = runCLI(t, "", "datasets", "export", "--format", "csv", "--in", out, "--out", pq+".csv")
	if code == 0 || !strings.Contains(stderr, "only parquet") {
		t.Fatalf("--format csv: code %d err %q", code, stderr)
	}
}

func TestDatasetsDamagedShard(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shards")
	if _, stderr, code := runCLI(t, "", "datasets", "import-sgf", boardspaceDir, "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	shard := filepath.Join(out, "shard-000000.yz")
	data, _ := os.ReadFile(shard)
	if err := os.WriteFile(shard, data[:len(data)-20], 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "", "datasets", "stats", out)
	if code != 1 || !strings.HasPrefix(stderr, "yinsh: "+shard+": record 5 at byte ") || !strings.Contains(stderr, "truncated") {
		t.Fatalf("stats of a truncated shard: code %d err %q", code, stderr)
	}
	pq := filepath.Join(t.TempDir(), "x.parquet")
	_, stderr, code = runCLI(t, "", "datasets", "export", "--in", out, "--out", pq)
	if code != 1 || !strings.Contains(stderr, shard+": record 5") {
		t.Fatalf("export of a truncated shard: code %d err %q", code, stderr)
	}
	if ents, _ := os.ReadDir(filepath.Dir(pq)); len(ents) != 0 {
		t.Fatalf("a failed export left files: %v", ents)
	}
}

func TestDatasetsImportBadRecord(t *testing.T) {
	in := t.TempDir()
	files, _ := filepath.Glob(boardspaceDir + "/*.sgf")
	for _, f := range files[:2] {
		data, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(in, filepath.Base(f)), data, 0o644)
	}
	data, _ := os.ReadFile(files[0])
	bad := strings.Replace(string(data), "place wr  G 2", "place wr  Q 2", 1)
	badPath := filepath.Join(in, "zz-bad.sgf")
	os.WriteFile(badPath, []byte(bad), 0o644)
	out := filepath.Join(t.TempDir(), "shards")
	_, stderr, code := runCLI(t, "", "datasets", "import-sgf", in, "--out", out)
	if code != 1 || !strings.Contains(stderr, badPath+": sgf line 12: ply 1") || !strings.Contains(stderr, `"q2" is not a point`) {
		t.Fatalf("bad record: code %d err %q", code, stderr)
	}
	if shards, _ := datasets.ListShards(out); len(shards) != 0 {
		t.Fatalf("a failed import wrote %v", shards)
	}
	stdout, stderr, code := runCLI(t, "", "datasets", "import-sgf", in, "--out", out, "--skip-bad")
	if code != 0 || !strings.Contains(stderr, "skipping "+badPath) || !strings.Contains(stdout, "imported 2 games") {
		t.Fatalf("--skip-bad: code %d out %q err %q", code, stdout, stderr)
	}
	_, stderr, code = runCLI(t, "", "datasets", "import-sgf", t.TempDir(), "--out", out, "--append")
	if code != 1 || !strings.Contains(stderr, "no .sgf files") {
		t.Fatalf("empty input: code %d err %q", code, stderr)
	}
}

func TestDatasetsFlags(t *testing.T) {
	var got *DatasetsExportOptions
	cmd := newCmdDatasetsExport(func(o *DatasetsExportOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--in", "a", "--out", "b.parquet", "--force"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.In != "a" || got.Path != "b.parquet" || !got.Force || got.Format != "parquet" {
		t.Fatalf("options %+v", got)
	}
	var imp *DatasetsImportOptions
	icmd := newCmdDatasetsImportSGF(func(o *DatasetsImportOptions) error { imp = o; return nil })
	icmd.SetArgs([]string{"games", "--out", "shards", "--games-per-shard", "7", "--append"})
	if err := icmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if imp.In != "games" || imp.Dir != "shards" || imp.GamesPerShard != 7 || !imp.Append || imp.SkipBad {
		t.Fatalf("options %+v", imp)
	}
	icmd = newCmdDatasetsImportSGF(func(*DatasetsImportOptions) error { return nil })
	icmd.SetArgs([]string{"games"})
	icmd.SetErr(new(bytes.Buffer))
	icmd.SetOut(new(bytes.Buffer))
	if err := icmd.Execute(); err == nil || !strings.Contains(err.Error(), "--out is required") {
		t.Fatalf("missing --out: %v", err)
	}
}
