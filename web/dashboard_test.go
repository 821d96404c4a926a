package web

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/train"
)

// TestDashboardFields: the fields the dashboard draws (static/app.js) are those train.Metrics
// writes into metrics.jsonl, and the test runs' lines (metricsLine) have the same shape.
func TestDashboardFields(t *testing.T) {
	m := train.Metrics{Generation: 3, Elapsed: 60, RatingAnchor: "gen-0000", Elo: &train.Interval{Value: 10, Low: -5, High: 25}}
	m.SelfPlay.MeanLength, m.SelfPlay.GamesPerHour = 70, 900
	m.Train.LossTotal, m.Train.LossPolicy, m.Train.LossValue = 3, 2, 1
	m.Eval.Baselines = map[string]float64{"random": 0.9}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var real, ours map[string]any
	json.Unmarshal(data, &real)
	if err := json.Unmarshal([]byte(metricsLine(1)), &ours); err != nil {
		t.Fatal(err)
	}
	app, err := os.ReadFile("static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range [][]string{
		{"generation"}, {"elapsed_s"}, {"rating_anchor"}, {"elo", "value"}, {"elo", "low"}, {"elo", "high"},
		{"train", "loss"}, {"train", "loss_policy"}, {"train", "loss_value"},
		{"selfplay", "mean_length"}, {"selfplay", "games_per_hour"}, {"eval", "baselines", "random"},
	} {
		for name, v := range map[string]map[string]any{"train.Metrics": real, "metricsLine": ours} {
			var cur any = v
			for _, k := range path {
				obj, ok := cur.(map[string]any)
				if !ok {
					cur = nil
					break
				}
				cur = obj[k]
			}
			if cur == nil {
				t.Errorf("%s has no %s", name, strings.Join(path, "."))
			}
		}
		// the page names the last key (as g(m, "train", "loss") or m.elo.value)
		if last := path[len(path)-1]; last != "random" && !strings.Contains(string(app), `"`+last+`"`) && !strings.Contains(string(app), "."+last) {
			t.Errorf("static/app.js does not read %s", strings.Join(path, "."))
		}
	}
}
