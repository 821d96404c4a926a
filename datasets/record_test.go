package datasets

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
)

// randomRecord plays a uniformly random game and attaches search-like targets: three positions in
// four are training targets with a policy over up to maxEntries legal actions; half carry a root WDL.
func randomRecord(rng *rand.Rand, id uint64, v env.Variant, maxEntries int) *Record {
	s := env.NewState(v)
	r := &Record{ID: id, Variant: v, Generator: "ckpt-000042"}
	var buf []env.Action
	for !s.IsTerminal() {
		buf = s.LegalActions(buf[:0])
		a := buf[rng.IntN(len(buf))]
		var t Target
		if rng.IntN(4) != 0 {
			k := 1 + rng.IntN(min(len(buf), maxEntries))
			perm := rng.Perm(len(buf))[:k]
			w := make([]float32, k)
			var sum float32
			for i := range w {
				w[i] = rng.Float32() + 0.01
				sum += w[i]
			}
			for i, j := range perm {
				t.Policy = append(t.Policy, PolicyEntry{Action: uint16(buf[j]), Prob: w[i] / sum})
			}
		}
		if rng.IntN(2) == 0 {
			x, y := rng.Float32(), rng.Float32()
			lo, hi := min(x, y), max(x, y)
			t.RootWDL = [3]float32{lo, hi - lo, 1 - hi}
		}
		r.Actions = append(r.Actions, a)
		r.Targets = append(r.Targets, t)
		if err := s.ApplyAction(a); err != nil {
			panic(err)
		}
	}
	r.Outcome = s.Outcome()
	return r
}

func testRecords(n int, seed uint64) []*Record {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]*Record, n)
	for i := range out {
		out[i] = randomRecord(rng, uint64(i)+seed*1000, env.Variant(i%2), 12)
	}
	// An adjudicated game (a resignation) and an unfinished one.
	if n >= 3 {
		cut := *out[n-1]
		cut.Actions, cut.Targets = cut.Actions[:len(cut.Actions)/2], cut.Targets[:len(cut.Targets)/2]
		cut.Outcome = env.WhiteWins
		out[n-1] = &cut
		cut2 := *out[n-2]
		cut2.Actions, cut2.Targets = cut2.Actions[:20], cut2.Targets[:20]
		cut2.Outcome = env.Ongoing
		out[n-2] = &cut2
	}
	return out
}

func TestRecordEncodingRoundTrip(t *testing.T) {
	recs := testRecords(20, 1)
	recs = append(recs, &Record{ID: math.MaxUint64, Generator: "empty ✓"}) // no actions at all
	for _, r := range recs {
		if err := r.Validate(); err != nil {
			t.Fatal(err)
		}
		raw := appendRecord(nil, r)
		got, err := decodeRecord(raw)
		if err != nil {
			t.Fatalf("game %d: %v", r.ID, err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Fatalf("game %d: round trip differs:\n got %+v\nwant %+v", r.ID, got, r)
		}
		for cut := 0; cut < len(raw); cut += 1 + len(raw)/50 {
			if _, err := decodeRecord(raw[:cut]); err == nil {
				t.Fatalf("game %d: record cut at %d of %d bytes decoded", r.ID, cut, len(raw))
			}
		}
		if _, err := decodeRecord(append(raw, 0)); err == nil || !strings.Contains(err.Error(), "after the record") {
			t.Fatalf("trailing byte: %v", err)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	base := testRecords(1, 2)[0]
	firstTarget := 0
	for !base.Targets[firstTarget].IsTarget() {
		firstTarget++
	}
	cases := []struct {
		name, want string
		edit       func(r *Record)
	}{
		{"illegal action", "ply 2", func(r *Record) { r.Actions[1] = r.Actions[0] }},
		{"policy entry not legal", "is not legal", func(r *Record) {
			r.Targets[firstTarget].Policy = []PolicyEntry{{Action: uint16(env.PassAction), Prob: 1}}
		}},
		{"policy sum", "sum to", func(r *Record) {
			r.Targets[firstTarget].Policy = []PolicyEntry{{Action: uint16(r.Actions[firstTarget]), Prob: 0.5}}
		}},
		{"NaN probability", "not in [0, 1]", func(r *Record) {
			r.Targets[firstTarget].Policy = []PolicyEntry{{Action: uint16(r.Actions[firstTarget]), Prob: float32(math.NaN())}}
		}},
		{"root WDL sum", "root WDL", func(r *Record) { r.Targets[0].RootWDL = [3]float32{0.5, 0, 0} }},
		{"wrong outcome", "final position says", func(r *Record) {
			if r.Outcome == env.Draw {
				r.Outcome = env.WhiteWins
			} else {
				r.Outcome = env.Draw
			}
		}},
		{"targets length", "targets for", func(r *Record) { r.Targets = r.Targets[1:] }},
		{"action range", "out of range", func(r *Record) { r.Actions[0] = env.Action(env.NumActions) }},
		{"variant", "unknown variant", func(r *Record) { r.Variant = 7 }},
		{"generator", "UTF-8", func(r *Record) { r.Generator = "\xff" }},
		{"after the end", "ply", func(r *Record) {
			r.Actions = append(r.Actions, env.PassAction)
			r.Targets = append(r.Targets, Target{})
		}},
	}
	for _, c := range cases {
		r := cloneRecord(base)
		c.edit(r)
		err := r.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	if err := base.Validate(); err != nil {
		t.Fatalf("the cases edited the base record: %v", err)
	}
}

func cloneRecord(r *Record) *Record {
	c := *r
	c.Actions = append([]env.Action(nil), r.Actions...)
	c.Targets = make([]Target, len(r.Targets))
	for i, t := range r.Targets {
		c.Targets[i] = Target{Policy: append([]PolicyEntry(nil), t.Policy...), RootWDL: t.RootWDL}
		if t.Policy == nil {
			c.Targets[i].Policy = nil
		}
	}
	return &c
}

func TestValueFor(t *testing.T) {
	cases := []struct {
		o    env.Outcome
		c    env.Color
		want [3]float32
	}{
		{env.WhiteWins, env.White, [3]float32{1, 0, 0}},
		{env.WhiteWins, env.Black, [3]float32{0, 0, 1}},
		{env.BlackWins, env.Black, [3]float32{1, 0, 0}},
		{env.BlackWins, env.White, [3]float32{0, 0, 1}},
		{env.Draw, env.White, [3]float32{0, 1, 0}},
		{env.Ongoing, env.Black, [3]float32{}},
	}
	for _, c := range cases {
		if got := ValueFor(c.o, c.c); got != c.want {
			t.Errorf("ValueFor(%s, %s) = %v, want %v", c.o, c.c, got, c.want)
		}
	}
}

func TestStats(t *testing.T) {
	recs := testRecords(10, 3)
	var st Stats
	lo, hi, pos := 1<<30, 0, 0
	for _, r := range recs {
		st.Add(r)
		lo, hi, pos = min(lo, len(r.Actions)), max(hi, len(r.Actions)), pos+len(r.Actions)
	}
	if st.Games != 10 || st.Positions != pos || st.MinLength != lo || st.MaxLength != hi {
		t.Fatalf("stats %+v; want positions %d min %d max %d", st, pos, lo, hi)
	}
	if st.Results[env.Ongoing] != 1 || st.Results[0]+st.Results[1]+st.Results[2]+st.Results[3] != 10 {
		t.Fatalf("results %v", st.Results)
	}
	if got := st.Share(env.WhiteWins) + st.Share(env.BlackWins) + st.Share(env.Draw) + st.Share(env.Ongoing); math.Abs(got-1) > 1e-12 {
		t.Fatalf("shares sum to %v", got)
	}
}
