package train

import "testing"

func TestGenerationNames(t *testing.T) {
	for g, name := range map[int]string{0: "gen-0000", 7: "gen-0007", 1234: "gen-1234", 12345: "gen-12345"} {
		if got := GenName(g); got != name {
			t.Errorf("GenName(%d) = %q, want %q", g, got, name)
		}
		if got, ok := ParseGenName(name); !ok || got != g {
			t.Errorf("ParseGenName(%q) = %d, %v; want %d", name, got, ok, g)
		}
		if got := CheckpointName(g); got != name+".ckpt" {
			t.Errorf("CheckpointName(%d) = %q", g, got)
		}
		if got, ok := ParseCheckpointName(name + ".ckpt"); !ok || got != g {
			t.Errorf("ParseCheckpointName(%q) = %d, %v; want %d", name+".ckpt", got, ok, g)
		}
	}
	for _, s := range []string{"gen-7", "gen-007", "gen-00007", "gen-+007", "gen--007", "gen-000a", "Gen-0007",
		"gen-0007x", "random", "rollout:200", "", "gen-", "gen-0007.ckpt"} {
		if g, ok := ParseGenName(s); ok {
			t.Errorf("ParseGenName(%q) = %d, true", s, g)
		}
	}
	for _, s := range []string{"gen-0007", "gen-7.ckpt", "gen-0007.ckpt.tmp-1", ".gen-0007.ckpt.tmp-1", "gen-0007.CKPT",
		"pretrain.ckpt", "x/gen-0007.ckpt"} {
		if g, ok := ParseCheckpointName(s); ok {
			t.Errorf("ParseCheckpointName(%q) = %d, true", s, g)
		}
	}
}
