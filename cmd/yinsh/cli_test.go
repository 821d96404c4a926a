package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

// initCheckpoint writes a tiny checkpoint, recording variant when it is not "".
func initCheckpoint(t *testing.T, dir, name, variant string) string {
	t.Helper()
	ck := filepath.Join(dir, name)
	args := []string{"model", "init", "--net", "tiny", "--seed", "3", "--out", ck}
	if variant != "" {
		args = append(args, "--variant", variant)
	}
	if _, errs, code := runCLI(t, "", args...); code != 0 {
		t.Fatalf("model init: %s", errs)
	}
	return ck
}

func TestVersionFlag(t *testing.T) {
	out, errs, code := runCLI(t, "", "--version")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	for _, want := range []string{"yinsh ", "\nmodule: github.com/yinsh-zero/yinsh", "\nrevision: ", "\ngo: go1.", "\ntags: "} {
		if !strings.Contains(out, want) {
			t.Errorf("--version lacks %q:\n%s", want, out)
		}
	}
}

func TestUnknownSubcommand(t *testing.T) {
	for _, c := range []struct{ args []string }{
		{[]string{"model", "bogus"}},
		{[]string{"datasets", "bogus"}},
		{[]string{"bench", "bogus"}},
		{[]string{"bogus"}},
	} {
		_, errs, code := runCLI(t, "", c.args...)
		if code == 0 || !strings.Contains(errs, `unknown command "bogus"`) {
			t.Errorf("%v: code %d err %q", c.args, code, errs)
		}
	}
	_, errs, _ := runCLI(t, "", "model", "inf")
	if !strings.Contains(errs, "did you mean info") {
		t.Errorf("no suggestion: %q", errs)
	}
	// a group alone prints its help
	out, _, code := runCLI(t, "", "model")
	if code != 0 || !strings.Contains(out, "info") || !strings.Contains(out, "init") {
		t.Errorf("yinsh model: code %d out %q", code, out)
	}
}

func TestModelInfo(t *testing.T) {
	dir := t.TempDir()
	ck := initCheckpoint(t, dir, "blitz.ckpt", "blitz")
	out, errs, code := runCLI(t, "", "model", "info", ck)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	cfg, _ := model.Preset("tiny")
	st, _ := os.Stat(ck)
	for _, want := range []string{
		"kind: training", "variant: blitz\n", "run: unknown\n", "generation: unknown\n", "step: 0\n",
		"encoding version: ", "net: tiny: 2 blocks x 16 channels",
		"parameters: " + itoa64(model.ParamCount(cfg, model.KindTraining)) + "\n",
		"flops per position: " + itoa64(cfg.FLOPsPerPosition()) + " ",
		"size: " + itoa64(st.Size()) + " bytes", "(verified)\n", "optimizer: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("model info lacks %q:\n%s", want, out)
		}
	}
	// a checkpoint of a run: the origin as a trainer records it
	net, err := gonum.Load(ck)
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "gen-0007.ckpt")
	if err := model.SaveNet(net, run, model.Origin{Variant: env.Standard, RunID: "quick", Generation: 7}); err != nil {
		t.Fatal(err)
	}
	out, _, _ = runCLI(t, "", "model", "info", run)
	for _, want := range []string{"variant: standard\n", "run: quick\n", "generation: 7\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("model info of a run checkpoint lacks %q:\n%s", want, out)
		}
	}
	// an old checkpoint (no variant): unknown
	old := initCheckpoint(t, dir, "old.ckpt", "")
	out, _, _ = runCLI(t, "", "model", "info", old)
	if !strings.Contains(out, "variant: unknown\n") {
		t.Errorf("old checkpoint:\n%s", out)
	}
	// damaged: one byte of the data changed
	b, _ := os.ReadFile(ck)
	b[len(b)-3] ^= 0x40
	bad := filepath.Join(dir, "bad.ckpt")
	os.WriteFile(bad, b, 0o644)
	for _, c := range []struct{ path, want string }{
		{bad, "checksum mismatch"},
		{filepath.Join(dir, "absent.ckpt"), "absent.ckpt"},
		{dir, "is a directory"},
	} {
		_, errs, code := runCLI(t, "", "model", "info", c.path)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("model info %s: code %d err %q, want %q", c.path, code, errs, c.want)
		}
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

func TestCheckpointVariantMismatch(t *testing.T) {
	dir := t.TempDir()
	ck := initCheckpoint(t, dir, "blitz.ckpt", "blitz")
	want := "checkpoint " + ck + " was trained for blitz; --variant is standard (pass --variant blitz, or --any-variant to play it anyway)"
	for _, args := range [][]string{
		{"play", "--checkpoint", ck},
		{"arena", "--a", ck, "--b", "random", "--games", "2", "--results", ""},
		{"arena", "--a", "random", "--b", ck, "--games", "2", "--results", ""},
		{"engine", "--player", ck},
		{"search", "--checkpoint", ck, "--sims", "8"},
	} {
		_, errs, code := runCLI(t, "quit\n", args...)
		if code == 0 || !strings.Contains(errs, want) {
			t.Errorf("%v: code %d err %q", args, code, errs)
		}
	}
	_, errs, code := runCLI(t, "", "selfplay", "--config", "../../configs/small.yaml", "--checkpoint", ck, "--games", "1", "--out", filepath.Join(dir, "sp"))
	if code == 0 || !strings.Contains(errs, "checkpoint "+ck+" was trained for blitz; the config's variant is standard (pass --set variant=blitz") {
		t.Errorf("selfplay: code %d err %q", code, errs)
	}
	_, errs, _ = runCLI(t, "", "arena", "--a", "random", "--b", ck, "--games", "2", "--results", "")
	if !strings.Contains(errs, "--b: checkpoint") {
		t.Errorf("arena does not name the flag: %q", errs)
	}
	// the right variant, --any-variant, and an old checkpoint (unknown variant) are accepted
	old := initCheckpoint(t, dir, "old.ckpt", "")
	for _, args := range [][]string{
		{"engine", "--player", ck, "--variant", "blitz", "--sims", "4"},
		{"engine", "--player", ck, "--any-variant", "--sims", "4"},
		{"engine", "--player", old, "--sims", "4"},
		{"search", "--checkpoint", ck, "--any-variant", "--sims", "8"},
		{"arena", "--a", ck, "--b", "random", "--games", "2", "--sims", "4", "--variant", "blitz", "--results", ""},
	} {
		if _, errs, code := runCLI(t, "quit\n", args...); code != 0 {
			t.Errorf("%v: code %d err %q", args, code, errs)
		}
	}
}

func TestExportForceAndMetadata(t *testing.T) {
	dir := t.TempDir()
	ck := initCheckpoint(t, dir, "net.ckpt", "blitz")
	onnx := filepath.Join(dir, "net.onnx")
	if _, errs, code := runCLI(t, "", "export", "--checkpoint", ck, "--out", onnx); code != 0 {
		t.Fatal(errs)
	}
	b, _ := os.ReadFile(onnx)
	if !bytes.Contains(b, []byte("yinsh.variant")) || !bytes.Contains(b, []byte("blitz")) {
		t.Error("ONNX metadata_props lack yinsh.variant blitz")
	}
	os.WriteFile(onnx, []byte("keep me"), 0o644)
	_, errs, code := runCLI(t, "", "export", "--checkpoint", ck, "--out", onnx)
	if code == 0 || !strings.Contains(errs, "already exists (pass --force to overwrite it)") {
		t.Fatalf("overwrite without --force: code %d err %q", code, errs)
	}
	if now, _ := os.ReadFile(onnx); string(now) != "keep me" {
		t.Fatal("a refused export changed the file")
	}
	if _, errs, code := runCLI(t, "", "export", "--checkpoint", ck, "--out", onnx, "--force"); code != 0 {
		t.Fatalf("--force: %s", errs)
	}
	st := filepath.Join(dir, "net.safetensors")
	if _, errs, code := runCLI(t, "", "export", "--checkpoint", ck, "--format", "safetensors", "--out", st); code != 0 {
		t.Fatal(errs)
	}
	out, _, _ := runCLI(t, "", "model", "info", st)
	if !strings.Contains(out, "kind: inference (") || !strings.Contains(out, "variant: blitz\n") {
		t.Errorf("the inference file lost the variant:\n%s", out)
	}
}

func TestPlayRecordAndSave(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "game.txt")
	saved := filepath.Join(dir, "saved.txt")
	input := "e5\nmoves\nsave " + saved + "\nsave " + saved + "\nsave --force " + saved + "\nquit\n"
	out, errs, code := runCLI(t, input, "play", "--player", "heuristic", "--as", "black", "--variant", "blitz", "--record", rec)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	for _, want := range []string{"Recording the game in " + rec, "saved 3 actions to " + saved, "not saved: " + saved + " already exists (save --force FILE"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "variant=blitz") || !strings.Contains(lines[0], `black="you"`) || len(strings.Fields(lines[1])) != 3 {
		t.Fatalf("record file:\n%s", b)
	}
	// the moves command printed the same tokens
	if !strings.Contains(out, "\n"+lines[1]+"\n") && !strings.Contains(out, " "+lines[1]+"\n") {
		t.Errorf("moves did not print %q:\n%s", lines[1], out)
	}
	// replay reads the record (and takes the variant from it)
	rout, errs, code := runCLI(t, "", "replay", rec)
	if code != 0 || lastLine(rout) != "result: ongoing" {
		t.Fatalf("replay of the record: code %d out %q err %q", code, rout, errs)
	}
	// an existing record is kept without --force
	_, errs, code = runCLI(t, "quit\n", "play", "--player", "random", "--record", rec)
	if code == 0 || !strings.Contains(errs, "--record: "+rec+" already exists (pass --force") {
		t.Fatalf("overwrite: code %d err %q", code, errs)
	}
	if now, _ := os.ReadFile(rec); !bytes.Equal(now, b) {
		t.Fatal("a refused play changed the record")
	}
	if _, errs, code = runCLI(t, "quit\n", "play", "--player", "random", "--record", rec, "--force"); code != 0 {
		t.Fatalf("--force: %s", errs)
	}
}

func TestPlayFlags(t *testing.T) {
	var got *PlayOptions
	cmd := newCmdPlay(func(o *PlayOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--player", "random", "--gumbel", "--leaves-in-flight", "4", "--variant", "blitz"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if !got.Gumbel || got.LeavesInFlight != 4 || got.Variant != env.Blitz {
		t.Fatalf("options %+v", got)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--player", "random", "--movetime", "-1"}, "--movetime"},
		{[]string{"--player", "random", "--leaves-in-flight", "0"}, "--leaves-in-flight"},
		{[]string{"--player", "random", "--variant", "blits"}, `--variant "blits"`},
	} {
		cmd := newCmdPlay(func(*PlayOptions) error { return nil })
		cmd.SetArgs(c.args)
		cmd.SetErr(&bytes.Buffer{})
		cmd.SetOut(&bytes.Buffer{})
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.args, err, c.want)
		}
	}
}

// shardGames writes three blitz games into a shard directory: one played to its end, one resigned
// (the record's outcome is a win, the position is not over), one unfinished.
func shardGames(t *testing.T, dir string) []*datasets.Record {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	game := func(id uint64, limit int) *datasets.Record {
		s := env.NewState(env.Blitz)
		r := &datasets.Record{ID: id, Variant: env.Blitz, Generator: "gen-0001"}
		for !s.IsTerminal() && len(r.Actions) < limit {
			legal := s.LegalActions(nil)
			a := legal[rng.IntN(len(legal))]
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
			r.Actions = append(r.Actions, a)
			r.Targets = append(r.Targets, datasets.Target{})
		}
		r.Outcome = s.Outcome()
		return r
	}
	full := game(101, 1<<30)
	resigned := game(102, 30)
	resigned.Outcome = env.WhiteWins
	unfinished := game(103, 20)
	recs := []*datasets.Record{full, resigned, unfinished}
	w, err := datasets.NewWriter(dir, datasets.WriterOptions{GamesPerShard: 2})
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
	return recs
}

func TestDatasetsGamesAndReplay(t *testing.T) {
	dir := t.TempDir()
	shards := filepath.Join(dir, "games")
	recs := shardGames(t, shards)
	out, errs, code := runCLI(t, "", "datasets", "games", shards)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "# yinsh arena record") {
		t.Fatalf("output:\n%s", out)
	}
	for _, want := range []string{"id=101", `generator="gen-0001"`, "result=" + recs[0].Outcome.String(), "variant=blitz"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("line %q lacks %q", lines[1], want)
		}
	}
	if !strings.Contains(lines[2], "forfeit=black") || !strings.HasPrefix(lines[3], "# not replayable") {
		t.Errorf("resigned and unfinished games:\n%s\n%s", lines[2], lines[3])
	}
	file := filepath.Join(dir, "games.txt")
	os.WriteFile(file, []byte(out), 0o644)
	rout, errs, code := runCLI(t, "", "replay", file)
	if code != 0 || lastLine(rout) != "games: 2" {
		t.Fatalf("replay of datasets games: code %d out %q err %q", code, rout, errs)
	}
	// one game by id: a plain token file
	out, errs, code = runCLI(t, "", "datasets", "games", filepath.Join(shards, "shard-000001.yz"), "--id", "103")
	if code != 0 || !strings.HasPrefix(out, "# id=103 ") {
		t.Fatalf("--id 103: code %d out %q err %q", code, out, errs)
	}
	os.WriteFile(file, []byte(out), 0o644)
	rout, errs, code = runCLI(t, "", "replay", file)
	if code != 0 || lastLine(rout) != "result: ongoing" {
		t.Fatalf("replay of one game: code %d out %q err %q", code, rout, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"datasets", "games", shards, "--id", "999"}, "no game with id 999 (3 games)"},
		{[]string{"datasets", "games", dir}, "no shards"},
		{[]string{"datasets", "games", file}, "not a YINSH Zero shard"},
		{[]string{"replay", filepath.Join(shards, "shard-000000.yz")}, "is a dataset shard: use yinsh datasets games " + filepath.Join(shards, "shard-000000.yz")},
		{[]string{"replay", shards}, "is a directory"},
	} {
		_, errs, code := runCLI(t, "", c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d err %q, want %q", c.args, code, errs, c.want)
		}
	}
}

func TestReplayRefusesBinaryFiles(t *testing.T) {
	dir := t.TempDir()
	ck := initCheckpoint(t, dir, "net.ckpt", "")
	zst := filepath.Join(dir, "x.zst")
	os.WriteFile(zst, []byte("\x28\xb5\x2f\xfd\x00\x00junk"), 0o644)
	bin := filepath.Join(dir, "x.bin")
	os.WriteFile(bin, []byte("e5 \x00\x01\x02"), 0o644)
	for _, c := range []struct{ path, want string }{
		{ck, "is a network checkpoint, not a game: use yinsh model info"},
		{zst, "is zstd-compressed data"},
		{bin, "is a binary file"},
	} {
		_, errs, code := runCLI(t, "", "replay", c.path)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("replay %s: code %d err %q, want %q", c.path, code, errs, c.want)
		}
	}
}

func TestSetOverrideErrors(t *testing.T) {
	run := filepath.Join(t.TempDir(), "run")
	for _, c := range []struct{ set, want string }{
		{"selfplay.simulatons=3", "--set selfplay.simulatons=3: unknown key selfplay.simulatons: selfplay has no key \"simulatons\" (did you mean selfplay.simulations?)"},
		{"selfplay.simulations=abc", "--set selfplay.simulations=abc: cannot unmarshal"},
		{"selfplay=3", "--set selfplay=3: selfplay is a section, not a value"},
		{"seed.x=1", "--set seed.x=1: seed is a value"},
		{"bogus=1", "unknown key bogus: the config has no key \"bogus\""},
		{"noequals", `--set "noequals": want key=value`},
	} {
		_, errs, code := runCLI(t, "", "train", "--config", "../../configs/quickstart.yaml", "--run", run, "--set", c.set)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("--set %s: code %d err %q, want %q", c.set, code, errs, c.want)
		}
	}
	if _, err := os.Stat(run); err == nil {
		t.Fatal("a refused --set created the run directory")
	}
	if err := checkOverrides([]string{"selfplay.simulations=64", "training.optimizer.schedule.lr=0.01", "evaluation.baselines=[random]"}); err != nil {
		t.Fatalf("valid overrides: %v", err)
	}
}

func TestErrorsSayItOnce(t *testing.T) {
	_, errs, code := runCLI(t, "", "show", "--moves", "e5 z9")
	if code == 0 {
		t.Fatal("bad token accepted")
	}
	if strings.Contains(errs, "env:") || strings.Count(errs, "z9") > 2 || !strings.Contains(errs, `token 2 "z9"`) {
		t.Errorf("error %q", errs)
	}
	out, _, _ := runCLI(t, "zz\nquit\n", "play", "--player", "random")
	if !strings.Contains(out, `cannot read "zz": bad point "zz" (type help)`) {
		t.Errorf("play: %q", out)
	}
	_, errs, _ = runCLI(t, "", "arena", "--a", "random", "--b", "/no/such.ckpt", "--results", "")
	if strings.Contains(errs, "selfplay:") || strings.Contains(errs, "model:") {
		t.Errorf("arena: %q", errs)
	}
}

func TestCompletions(t *testing.T) {
	dir := t.TempDir()
	ck := initCheckpoint(t, dir, "net.ckpt", "")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "play", "--variant", ""}, []string{"standard", "blitz"}},
		{[]string{"__complete", "arena", "--a", ""}, []string{"random", "heuristic", "rollout:", "engine:"}},
		{[]string{"__complete", "arena", "--b", "rollout:"}, []string{"rollout:200"}},
		{[]string{"__complete", "engine", "--player", ck[:len(ck)-3]}, []string{ck}},
		{[]string{"__complete", "export", "--format", ""}, []string{"onnx", "safetensors"}},
		{[]string{"__complete", "bench", "model", "--backend", ""}, []string{"gonum", "torch"}},
		{[]string{"__complete", "model", "init", "--net", ""}, []string{"small", "tiny"}},
	} {
		out, errs, code := runCLI(t, "", c.args...)
		if code != 0 {
			t.Fatalf("%v: code %d %s", c.args, code, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w+"\n") {
				t.Errorf("%v: completions %q lack %q", c.args, out, w)
			}
		}
	}
}

func TestSearchWithCheckpoint(t *testing.T) {
	ck := initCheckpoint(t, t.TempDir(), "net.ckpt", "blitz")
	for _, extra := range [][]string{nil, {"--rollout-mix", "0.5"}, {"--gumbel", "--leaves-in-flight", "1"}} {
		args := append([]string{"search", "--variant", "blitz", "--position", blitzWin, "--checkpoint", ck, "--sims", "64"}, extra...)
		out, errs, code := runCLI(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: code %d err %q", extra, code, errs)
		}
		if !strings.Contains(out, "evaluator network "+ck+" (tiny, step 0") || !strings.HasPrefix(lastLine(out), "best: ") {
			t.Fatalf("%v: output\n%s", extra, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "--checkpoint", ck, "--evaluator", "uniform", "--variant", "blitz"}, "not both"},
		{[]string{"search", "--rollout-mix", "0.5"}, "--rollout-mix needs --checkpoint"},
		{[]string{"search", "--checkpoint", ck, "--variant", "blitz", "--rollout-mix", "2"}, "--rollout-mix"},
	} {
		_, errs, code := runCLI(t, "", c.args...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d err %q, want %q", c.args, code, errs, c.want)
		}
	}
}

// TestUnknownFlagSuggestions: an unknown flag is refused (exit 1) with the command's closest flags,
// by edit distance, prefix, synonym or usage; other flag errors are left as they were.
func TestUnknownFlagSuggestions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"play", "--simulations", "64"}, `unknown flag: --simulations for "yinsh play"; did you mean --sims?`},
		{[]string{"arena", "--simulations=5"}, `unknown flag: --simulations for "yinsh arena"; did you mean --sims?`},
		{[]string{"search", "--sim", "5"}, `did you mean --sims?`},
		{[]string{"show", "--mvoes", "e5"}, `unknown flag: --mvoes for "yinsh show"; did you mean --moves?`},
		{[]string{"perft", "--depht", "2"}, `did you mean --depth?`},
		{[]string{"train", "--confg", "x.yaml"}, `did you mean --config?`},
		{[]string{"arena", "--game", "3"}, `did you mean --games?`},
		{[]string{"play", "--milliseconds", "3"}, `did you mean --movetime?`}, // by --movetime's usage
		{[]string{"selfplay", "--network", "x"}, `did you mean --checkpoint?`},
		{[]string{"show", "--log-levl", "debug"}, `did you mean --log-level?`}, // a global flag
		{[]string{"play", "-sims", "3"}, `unknown shorthand flag: 's' in -sims for "yinsh play"; did you mean --sims?`},
		{[]string{"play", "--xyzzy"}, `unknown flag: --xyzzy for "yinsh play" (see yinsh play --help)`},
		{[]string{"arena", "--games", "x"}, `invalid argument "x" for "--games" flag`},
	} {
		_, errs, code := runCLI(t, "", c.args...)
		if code != 1 || !strings.HasPrefix(errs, "yinsh: ") || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
}

func TestSuggestFlagsLimit(t *testing.T) {
	// at most three suggestions, nearest first
	root := newRootCmd()
	cmd, _, err := root.Find([]string{"arena"})
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.ParseFlags(nil) // merge the inherited flags, as a run does
	if s := suggestFlags(cmd, "a"); len(s) > 3 {
		t.Errorf("suggestions %v", s)
	}
	if s := suggestFlags(cmd, "gamez"); len(s) == 0 || s[0] != "games" {
		t.Errorf("gamez: %v", s)
	}
}
