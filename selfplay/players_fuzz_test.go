package selfplay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
	"github.com/yinsh-zero/yinsh/selfplay/protocol"
)

// fuzzCheckpointToken in a FuzzParsePlayer input stands for the test's checkpoint file.
const fuzzCheckpointToken = "CKPT"

// FuzzParsePlayer: OpenPlayer and ParsePlayer never panic; a spec is accepted exactly when it is
// random, heuristic, rollout:N with N in [1, MaxSims] or a checkpoint that loads (here only the
// test's), and every accepted spec's factory makes a player that decides, and a closer that closes.
//
// engine:"CMD" specs start a process and are skipped (selfplay/protocol's FuzzParseSpec fuzzes
// their parse); so are specs holding a path separator other than the test's checkpoint, which name
// files of the machine (a device or a named pipe among them; checkpoint decoding has fuzz targets
// of its own in model).
func FuzzParsePlayer(f *testing.F) {
	for _, s := range []string{
		"random", "heuristic", "rollout:1", "rollout:5", "rollout:200", "rollout:10000000", "rollout:10000001",
		"rollout:0", "rollout:-1", "rollout:", "rollout:+5", "rollout:05", "rollout:1e3", "rollout:0x10", "rollout: 5",
		"Random", " heuristic", "heuristic\n", "", "rollout", "rollout:5:5", "random:1",
		fuzzCheckpointToken, fuzzCheckpointToken + ".missing", "nonexistent.ckpt", "testdata", "players.go",
		`engine:"yinsh engine --player random"`,
	} {
		f.Add(s)
	}
	ck := fuzzCheckpoint(f)
	opts := PlayerOptions{Search: Search{Sims: 2}, Load: loadGonum}
	f.Fuzz(func(t *testing.T, spec string) {
		if strings.HasPrefix(spec, protocol.SpecPrefix) {
			t.Skip(`engine:"CMD" starts a process`)
		}
		if strings.ContainsAny(spec, `/\`) {
			t.Skip("a path of the machine")
		}
		spec = strings.ReplaceAll(spec, fuzzCheckpointToken, ck)
		_, rerr := ParseRollout(spec)
		valid := spec == "random" || spec == "heuristic" || spec == ck || strings.HasPrefix(spec, "rollout:") && rerr == nil

		factory, closer, err := OpenPlayer(spec, opts)
		if err != nil {
			if valid {
				t.Fatalf("OpenPlayer(%q): %v", spec, err)
			}
			if factory != nil || closer != nil {
				t.Fatalf("OpenPlayer(%q) failed (%v) but returned a factory or a closer", spec, err)
			}
			if err.Error() == "" {
				t.Fatalf("OpenPlayer(%q): an empty error", spec)
			}
		} else {
			if !valid {
				t.Fatalf("OpenPlayer(%q) accepts junk", spec)
			}
			if factory == nil || closer == nil {
				t.Fatalf("OpenPlayer(%q): factory %v, closer %v", spec, factory != nil, closer != nil)
			}
			p, err := factory(1)
			if err != nil {
				t.Fatalf("OpenPlayer(%q): the factory fails: %v", spec, err)
			}
			if p.Name() == "" {
				t.Fatalf("OpenPlayer(%q): a player without a name", spec)
			}
			p.NewGame()
			if n, _ := ParseRollout(spec); n <= 64 { // not rollout:10000000
				s := env.NewState(env.Blitz)
				d, err := p.Decide(s)
				if err != nil || s.Clone().ApplyAction(d.Action) != nil {
					t.Fatalf("OpenPlayer(%q): Decide = %v, %v", spec, d.Action, err)
				}
			}
			if err := closer.Close(); err != nil {
				t.Fatalf("OpenPlayer(%q): Close: %v", spec, err)
			}
		}
		// ParsePlayer is OpenPlayer without the closer: the same answer (a checkpoint's batcher would
		// live on, so not for the checkpoint)
		if spec != ck {
			if _, perr := ParsePlayer(spec, opts); (perr == nil) != (err == nil) {
				t.Fatalf("ParsePlayer(%q): %v, OpenPlayer: %v", spec, perr, err)
			}
		}
	})
}

// fuzzCheckpoint writes a freshly initialised tiny network and returns its path.
func fuzzCheckpoint(tb testing.TB) string {
	tb.Helper()
	cfg, err := model.Preset("tiny")
	if err != nil {
		tb.Fatal(err)
	}
	net, err := gonum.New(cfg, 3)
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "tiny.ckpt")
	if err := net.Save(path); err != nil {
		tb.Fatal(err)
	}
	return path
}
