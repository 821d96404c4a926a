package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/yinsh-zero/yinsh/env"
)

func TestAnalyzerRollout(t *testing.T) {
	a, err := NewAnalyzer(AnalyzerOptions{Player: "rollout:50", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if !a.Searches() {
		t.Fatal("rollout:50 should search")
	}
	s := env.NewState(env.Blitz)
	for _, tok := range []string{"e5", "f6", "e6", "f7", "e7", "f8", "e8", "f9", "d4", "g6"} {
		act, _ := env.ParseAction(tok)
		if err := s.ApplyAction(act); err != nil {
			t.Fatal(err)
		}
	}
	res, err := a.Analyze(context.Background(), AnalysisRequest{State: s, Sims: 64, Top: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sims != 64 || res.Visits < 64 || len(res.Top) != 3 || !res.HasValue || res.Side != env.White {
		t.Fatalf("result %+v", res)
	}
	if len(res.Policy) != len(s.LegalActions(nil)) {
		t.Fatalf("policy lists %d actions, %d legal", len(res.Policy), len(s.LegalActions(nil)))
	}
	sum := 0
	for i, p := range res.Policy {
		if i > 0 && p.Action <= res.Policy[i-1].Action {
			t.Fatal("policy not in action order")
		}
		sum += p.Visits
	}
	if sum != res.Visits-1 && sum != res.Visits {
		t.Fatalf("children visits %d, root %d", sum, res.Visits)
	}
	if !s.IsLegal(res.Best) || len(res.PV) == 0 || res.PV[0] != res.Best {
		t.Fatalf("best %v pv %v", res.Best, res.PV)
	}
	// a cancelled context stops the search
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.Analyze(ctx, AnalysisRequest{State: s, MoveTime: time.Minute}); err == nil {
		t.Fatal("cancelled analysis returned no error")
	}
}

func TestAnalyzerNotSearching(t *testing.T) {
	a, err := NewAnalyzer(AnalyzerOptions{Player: "heuristic"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s := env.NewState(env.Standard)
	res, err := a.Analyze(context.Background(), AnalysisRequest{State: s, Top: 5})
	if err != nil || res.Searched || !s.IsLegal(res.Best) {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := NewAnalyzer(AnalyzerOptions{Player: "rollout:0"}); err == nil {
		t.Fatal("rollout:0 accepted")
	}
}

// TestAnalyzerReport: Report is called after each chunk with the analysis so far (visits
// growing), the last report matches the answer's simulations, and an error it returns ends the
// search and is Analyze's error.
func TestAnalyzerReport(t *testing.T) {
	a, err := NewAnalyzer(AnalyzerOptions{Player: "rollout:50", Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s := env.NewState(env.Blitz)
	var reports []*AnalysisResult
	res, err := a.Analyze(context.Background(), AnalysisRequest{State: s, MoveTime: 120 * time.Millisecond, Top: 3,
		Report: func(r *AnalysisResult) error { reports = append(reports, r); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) < 2 {
		t.Fatalf("%d reports in 120 ms of search (chunks of 20 ms)", len(reports))
	}
	for i, r := range reports {
		if !r.Searched || !r.HasValue || len(r.Top) == 0 || len(r.PV) == 0 || i > 0 && r.Sims <= reports[i-1].Sims {
			t.Fatalf("report %d: %+v", i, r)
		}
	}
	if last := reports[len(reports)-1]; last.Sims != res.Sims {
		t.Fatalf("last report %d sims, answer %d", last.Sims, res.Sims)
	}
	stop := errors.New("enough")
	n := 0
	_, err = a.Analyze(context.Background(), AnalysisRequest{State: s, MoveTime: time.Minute,
		Report: func(*AnalysisResult) error { n++; return stop }})
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("a report's error: %v after %d reports", err, n)
	}
}
