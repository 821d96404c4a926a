package train

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// evaluation.every 2 over 5 generations: the gate runs on every generation, the ladder, anchor
// and baseline matches only on generations 2, 4 and 5 (the last), the ladder counting rated
// generations (offset 1 of generation 4 is generation 2; of generation 5, generation 4).
func TestEvaluationEvery(t *testing.T) {
	cfg := tinyConfig(t, 5)
	cfg.Evaluation.Every = 2
	cfg.Evaluation.Gate = "none"
	cfg.Evaluation.Ladder, cfg.Evaluation.LadderGames, cfg.Evaluation.AnchorGames = []int{1}, 2, 2
	dir := filepath.Join(t.TempDir(), "run")
	if err := Train(context.Background(), Options{Dir: dir, Config: cfg, Backend: gonumBackend}); err != nil {
		t.Fatal(err)
	}
	rs, err := ReadResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	played := map[string][]string{}
	for _, r := range rs {
		played[r.A] = append(played[r.A], r.B)
	}
	// every generation plays the best (evaluation.games 2, gate none: the previous generation)
	want := map[string][]string{
		"gen-0001": {"gen-0000"},
		"gen-0002": {"gen-0001", "gen-0000", "random"}, // best; ladder 1 → gen-0000 (rated 0); anchor played
		"gen-0003": {"gen-0002"},
		"gen-0004": {"gen-0003", "gen-0002", "gen-0000", "random"}, // ladder 1 → gen-0002
		"gen-0005": {"gen-0004", "gen-0000", "random"},             // ladder 1 → gen-0004, the best: played once
	}
	for g, w := range want {
		got := played[g]
		if !slices.Equal(got, w) {
			t.Errorf("%s played %v, want %v", g, got, w)
		}
	}
	if len(played) != len(want) {
		t.Errorf("players: %v", played)
	}
	for _, c := range []struct{ g, k, every, want int }{{8, 1, 8, 0}, {16, 2, 8, 0}, {20, 1, 8, 16}, {20, 2, 8, 8}, {7, 3, 1, 4}, {7, 3, 0, 4}} {
		if got := ladderGen(c.g, c.k, c.every); got != c.want {
			t.Errorf("ladderGen(%d, %d, %d) = %d, want %d", c.g, c.k, c.every, got, c.want)
		}
	}
	if err := validateSet(t, "evaluation.every=-1"); err == nil || !strings.Contains(err.Error(), "evaluation.every") {
		t.Errorf("evaluation.every=-1: %v", err)
	}
}

func validateSet(t *testing.T, kv string) error {
	t.Helper()
	_, err := ParseConfig(nil, "test", []string{kv})
	return err
}
