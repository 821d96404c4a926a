package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAnalyzeJSON runs `yinsh analyze --json` in process: every request is answered by id.
func TestAnalyzeJSON(t *testing.T) {
	in := `{"id":1,"moves":["e5","f6"],"sims":20}` + "\n" + `{"id":"b","variant":"blitz","movetime":20,"top":2}` + "\n" + `{"id":3,"moves":["zz9"]}` + "\n"
	out, errs, code := runCLI(t, in, "analyze", "--json", "--player", "rollout:10", "--parallel", "2")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	got := map[string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		var raw map[string]json.RawMessage
		if json.Unmarshal([]byte(l), &m) != nil || json.Unmarshal([]byte(l), &raw) != nil {
			t.Fatalf("answer %q", l)
		}
		got[string(raw["id"])] = m
	}
	if len(got) != 3 || got["1"]["best"] == nil || got[`"b"`]["best"] == nil || got["3"]["error"] == nil {
		t.Errorf("answers %v", got)
	}
	if _, errs, code := runCLI(t, "", "analyze", "--player", "rollout:10"); code == 0 || !strings.Contains(errs, "--json") {
		t.Errorf("without --json: code %d %q", code, errs)
	}
}
