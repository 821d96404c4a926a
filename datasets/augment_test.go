package datasets

import (
	"math"
	"slices"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

// TestAugmentEverySymmetry checks Augmenter.Write against an independent path — the transformed
// state's own observation and legal actions — for every symmetry, on positions of every phase: the
// policy target must land on legal actions of the transformed position, with the same probabilities.
func TestAugmentEverySymmetry(t *testing.T) {
	var b Batch
	b.Resize(1)
	var g Augmenter
	phases := map[env.Phase]int{}
	want := make([]float32, env.ObservationSize)
	wantMask := make([]bool, env.NumActions)
	for _, r := range testRecords(6, 13) {
		s := env.NewState(r.Variant)
		for i, a := range r.Actions {
			if tg := r.Targets[i]; tg.IsTarget() && (i%5 == 0 || s.Phase() >= env.PhaseRemoveRow) {
				phases[s.Phase()]++
				wdl := ValueFor(r.Outcome, s.CurrentPlayer())
				for sym := 0; sym < env.NumSymmetries; sym++ {
					g.Write(&b, 0, s, sym, tg.Policy, wdl)
					ts := s.Transform(sym)
					ts.Observation(want)
					ts.LegalMask(wantMask)
					if !slices.Equal(b.Planes, want) {
						t.Fatalf("game %d ply %d sym %d: planes differ from the transformed state's", r.ID, i, sym)
					}
					if !slices.Equal(b.Mask, wantMask) {
						t.Fatalf("game %d ply %d sym %d: mask differs from the transformed state's", r.ID, i, sym)
					}
					sum := 0.0
					for act, p := range b.Policy {
						if p != 0 && !b.Mask[act] {
							t.Fatalf("game %d ply %d sym %d: policy %v on illegal action %s", r.ID, i, sym, p, env.Action(act))
						}
						sum += float64(p)
					}
					if math.Abs(sum-1) > 1e-5 {
						t.Fatalf("policy sums to %v", sum)
					}
					var total float32
					for _, e := range tg.Policy {
						total += e.Prob
					}
					for _, e := range tg.Policy {
						img := env.TransformAction(sym, env.Action(e.Action))
						if !ts.IsLegal(img) {
							t.Fatalf("image %s of policy action %s is not legal in the transformed state", img, env.Action(e.Action))
						}
						if got := b.Policy[img]; math.Abs(float64(got-e.Prob/total)) > 1e-6 {
							t.Fatalf("sym %d: policy at %s = %v, want %v", sym, img, got, e.Prob/total)
						}
					}
					if [3]float32(b.WDL) != wdl {
						t.Fatalf("WDL %v, want %v", b.WDL, wdl)
					}
				}
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, ph := range []env.Phase{env.PhasePlace, env.PhaseMove, env.PhaseRemoveRow, env.PhaseRemoveRing} {
		if phases[ph] == 0 {
			t.Errorf("no %s position checked (%v)", ph, phases)
		}
	}
}

func TestBatchResize(t *testing.T) {
	var b Batch
	b.Resize(3)
	if b.N != 3 || len(b.Planes) != 3*env.ObservationSize || len(b.Mask) != 3*env.NumActions ||
		len(b.Policy) != 3*env.NumActions || len(b.WDL) != 9 {
		t.Fatalf("sizes %d %d %d %d %d", b.N, len(b.Planes), len(b.Mask), len(b.Policy), len(b.WDL))
	}
	p := &b.Planes[0]
	b.Resize(2)
	if &b.Planes[0] != p || len(b.Planes) != 2*env.ObservationSize {
		t.Fatal("Resize to a smaller batch reallocated")
	}
}
