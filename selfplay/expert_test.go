package selfplay

import (
	"context"
	"math"
	"reflect"
	"sort"
	"testing"

	"github.com/yinsh-zero/yinsh/datasets"
	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/mcts"
)

// expertRun plays an expert run and returns its records by game number.
func expertRun(t *testing.T, a, b PlayerFactory, opts ExpertOptions) (map[int]*datasets.Record, ExpertStats) {
	t.Helper()
	recs := map[int]*datasets.Record{}
	opts.OnGame = func(g ExpertGame) error {
		if _, dup := recs[g.Index]; dup {
			t.Errorf("game %d played twice", g.Index)
		}
		recs[g.Index] = g.Record
		return nil
	}
	st, err := PlayExpert(context.Background(), a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	return recs, st
}

// checkExpertRecord checks a record's targets against a replay: the opening and forced actions are
// not targets, every other position of a searching player is, and a target is a distribution over
// legal actions that holds the action played.
func checkExpertRecord(t *testing.T, r *datasets.Record, opening int, searching [2]bool) (targets int) {
	t.Helper()
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	if r.Outcome == env.Ongoing {
		t.Errorf("game %d: no result", r.ID)
	}
	s := env.NewState(r.Variant)
	for k, a := range r.Actions {
		tg := &r.Targets[k]
		legal := s.LegalActions(nil)
		want := k >= opening && len(legal) > 1 && searching[s.CurrentPlayer()]
		if tg.IsTarget() != want {
			t.Fatalf("game %d ply %d: target %v, want %v (opening %d, %d legal)", r.ID, k+1, tg.IsTarget(), want, opening, len(legal))
		}
		if !tg.IsTarget() {
			if k < opening && tg.RootWDL != [3]float32{} {
				t.Errorf("game %d ply %d: opening ply with a root value", r.ID, k+1)
			}
		} else {
			sum, played := 0.0, false
			for _, e := range tg.Policy {
				if !s.IsLegal(env.Action(e.Action)) || e.Prob <= 0 {
					t.Fatalf("game %d ply %d: policy entry %v", r.ID, k+1, e)
				}
				sum += float64(e.Prob)
				played = played || env.Action(e.Action) == a
			}
			if math.Abs(sum-1) > 1e-5 || !played {
				t.Fatalf("game %d ply %d: policy sums to %v, holds the played action: %v", r.ID, k+1, sum, played)
			}
			if w := tg.RootWDL; math.Abs(float64(w[0]+w[1]+w[2])-1) > 1e-4 {
				t.Fatalf("game %d ply %d: root WDL %v", r.ID, k+1, w)
			}
			targets++
		}
		if err := s.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
	}
	return targets
}

func TestExpertGames(t *testing.T) {
	f, err := ParsePlayer("rollout:8", PlayerOptions{Variant: env.Blitz})
	if err != nil {
		t.Fatal(err)
	}
	opts := ExpertOptions{Games: 4, Parallel: 2, Seed: 7, Variant: env.Blitz, OpeningPlies: 2, Generator: "expert:test"}
	recs, st := expertRun(t, f, f, opts)
	if len(recs) != 4 || st.Games != 4 || st.Skipped != 0 {
		t.Fatalf("%d records, stats %+v", len(recs), st)
	}
	positions, targets, forced := 0, 0, 0
	for i, r := range recs {
		if r.ID != ExpertGameID(7, i) || r.Generator != "expert:test" || r.Variant != env.Blitz {
			t.Errorf("game %d: id %d generator %q variant %s", i, r.ID, r.Generator, r.Variant)
		}
		// the pair's opening starts both of its games
		o := RandomOpening(7, i/2, 2, env.Blitz)
		if !reflect.DeepEqual(r.Actions[:2], o.Actions) {
			t.Errorf("game %d starts %v, not its opening %v", i, r.Actions[:2], o.Actions)
		}
		targets += checkExpertRecord(t, r, 2, [2]bool{true, true})
		positions += len(r.Actions)
		forced += len(r.Actions) - 2 - r.TrainingTargets()
	}
	if st.Positions != positions || st.Targets != targets || targets == 0 {
		t.Errorf("stats %+v; counted %d positions %d targets", st, positions, targets)
	}
	if forced == 0 {
		t.Error("no forced action in four games: the forced-action check tested nothing")
	}
	w := st.ByColor
	if n := w[0][0] + w[0][1] + w[0][2] + w[1][0] + w[1][1] + w[1][2]; n != 4 || w[0][0]+w[0][1]+w[0][2] != 2 {
		t.Errorf("by colour %v", w)
	}

	// deterministic per seed, whatever the parallelism
	opts.Parallel = 1
	again, _ := expertRun(t, f, f, opts)
	if !reflect.DeepEqual(recs, again) {
		t.Error("the same seed gave different games")
	}
	// games of different numbers differ, even those sharing an opening
	ids := map[uint64]bool{}
	for _, r := range recs {
		ids[r.ID] = true
	}
	if len(ids) != 4 || reflect.DeepEqual(recs[0].Actions, recs[1].Actions) {
		t.Error("games are not distinct")
	}

	// resume: recorded games are not played again; the others are the same games
	opts.Parallel = 2
	opts.Games = 6
	opts.Recorded = func(id uint64) bool { return id == recs[0].ID || id == recs[3].ID }
	more, st2 := expertRun(t, f, f, opts)
	keys := make([]int, 0, len(more))
	for k := range more {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	if !reflect.DeepEqual(keys, []int{1, 2, 4, 5}) || st2.Skipped != 2 || st2.Games != 4 {
		t.Fatalf("resumed run played games %v (stats %+v), want [1 2 4 5]", keys, st2)
	}
	for _, k := range []int{1, 2} {
		if !reflect.DeepEqual(more[k], recs[k]) {
			t.Errorf("game %d differs when resumed", k)
		}
	}
	// nothing left to play
	opts.Recorded = func(uint64) bool { return true }
	none, st3 := expertRun(t, f, f, opts)
	if len(none) != 0 || st3.Skipped != 6 {
		t.Errorf("all recorded: played %d, stats %+v", len(none), st3)
	}
}

// A player that does not search gives its positions no target; the search player's are targets.
func TestExpertNonSearchingOpponent(t *testing.T) {
	a, err := ParsePlayer("rollout:4", PlayerOptions{Variant: env.Blitz})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ParsePlayer("random", PlayerOptions{})
	recs, st := expertRun(t, a, b, ExpertOptions{Games: 2, Parallel: 2, Seed: 3, Variant: env.Blitz})
	for i, r := range recs {
		searching := [2]bool{true, false} // A is white in game 0
		if i == 1 {
			searching = [2]bool{false, true}
		}
		if checkExpertRecord(t, r, 0, searching) == 0 {
			t.Errorf("game %d: no targets", i)
		}
	}
	if st.Games != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestExpertOptionsRefused(t *testing.T) {
	f, _ := ParsePlayer("random", PlayerOptions{})
	for _, o := range []ExpertOptions{{Games: 0, Parallel: 1}, {Games: 1, Parallel: 0}, {Games: 1, Parallel: 1, OpeningPlies: 11}} {
		if _, err := PlayExpert(context.Background(), f, f, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// Decision.Policy is the whole root distribution (Top may be truncated), in action-id order.
func TestExpertDecisionPolicy(t *testing.T) {
	res := &mcts.Result{Action: 5}
	for k := 20; k > 0; k-- { // shuffled order
		res.Children = append(res.Children, mcts.ChildStats{Action: env.Action(k), Visits: k % 4, Policy: float32(k%4) / 30})
	}
	d := DecisionFromResult(res, 3)
	if len(d.Top) != 3 || len(d.Policy) != 15 {
		t.Fatalf("top %d, policy %d entries (want 3, 15)", len(d.Top), len(d.Policy))
	}
	for k, e := range d.Policy {
		if k > 0 && e.Action <= d.Policy[k-1].Action || e.Prob != float32(int(e.Action)%4)/30 {
			t.Fatalf("policy %v", d.Policy)
		}
	}
	// a real search's distribution sums to 1
	f, _ := ParsePlayer("rollout:64", PlayerOptions{})
	p, _ := f(1)
	d, err := p.Decide(env.NewState(env.Standard))
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, e := range d.Policy {
		sum += float64(e.Prob)
	}
	if math.Abs(sum-1) > 1e-5 {
		t.Errorf("policy sums to %v", sum)
	}
}
