package datasets

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
)

func newTestWindow(t testing.TB, opts WindowOptions, recs []*Record) *Window {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	w, err := NewWindow(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Outcome == env.Ongoing {
			continue
		}
		if err := w.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// checkExample checks example k of b against position ply of record r seen through symmetry sym,
// computed independently (replay from the start, transform the state).
func checkExample(t *testing.T, b *Batch, k int, r *Record, ply, sym int) {
	t.Helper()
	s := env.NewState(r.Variant)
	for _, a := range r.Actions[:ply] {
		if err := s.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
	}
	ts := s.Transform(sym)
	planes := make([]float32, env.ObservationSize)
	mask := make([]bool, env.NumActions)
	ts.Observation(planes)
	ts.LegalMask(mask)
	if !slices.Equal(b.Planes[k*env.ObservationSize:(k+1)*env.ObservationSize], planes) {
		t.Fatalf("example %d (game %d ply %d sym %d): planes differ", k, r.ID, ply, sym)
	}
	if !slices.Equal(b.Mask[k*env.NumActions:(k+1)*env.NumActions], mask) {
		t.Fatalf("example %d: mask differs", k)
	}
	pol := b.Policy[k*env.NumActions : (k+1)*env.NumActions]
	want := make([]float32, env.NumActions)
	for _, e := range r.Targets[ply].Policy {
		want[env.TransformAction(sym, env.Action(e.Action))] = e.Prob
	}
	sum := 0.0
	for a := range pol {
		if math.Abs(float64(pol[a]-want[a])) > 1e-4 {
			t.Fatalf("example %d: policy at %s = %v, want %v", k, env.Action(a), pol[a], want[a])
		}
		if pol[a] != 0 && !mask[a] {
			t.Fatalf("example %d: policy on illegal action %s", k, env.Action(a))
		}
		sum += float64(pol[a])
	}
	if math.Abs(sum-1) > 1e-5 {
		t.Fatalf("example %d: policy sums to %v", k, sum)
	}
	if got, want := [3]float32(b.WDL[3*k:3*k+3]), ValueFor(r.Outcome, s.CurrentPlayer()); got != want {
		t.Fatalf("example %d: WDL %v, want %v (outcome %s, %s to act)", k, got, want, r.Outcome, s.CurrentPlayer())
	}
	// the score target: the final difference of rings removed, from the side to act's view
	end := s.Clone()
	for _, a := range r.Actions[ply:] {
		if err := end.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
	}
	want = make([]float32, model.NumScore)
	if end.IsTerminal() {
		me := s.CurrentPlayer()
		want[end.RingsRemoved(me)-end.RingsRemoved(1-me)+3] = 1
	}
	if got := b.Score[k*model.NumScore : (k+1)*model.NumScore]; !slices.Equal(got, want) {
		t.Fatalf("example %d (game %d ply %d): score %v, want %v", k, r.ID, ply, got, want)
	}
}

func TestWindowSampleMatchesRecords(t *testing.T) {
	recs := testRecords(12, 20)
	var live []*Record
	for _, r := range recs {
		if r.Outcome != env.Ongoing {
			live = append(live, r)
		}
	}
	for _, every := range []int{1, 5, 16, 1000} {
		w := newTestWindow(t, WindowOptions{SnapshotEvery: every}, recs)
		rng := rand.New(rand.NewPCG(1, uint64(every)))
		picks, err := w.draw(rng, 64)
		if err != nil {
			t.Fatal(err)
		}
		var b Batch
		if err := build(picks, &b); err != nil {
			t.Fatal(err)
		}
		syms := map[int]bool{}
		for k, p := range picks {
			r := live[p.game]
			if !r.Targets[p.ply].IsTarget() {
				t.Fatalf("drew ply %d of game %d, which is not a training target", p.ply, r.ID)
			}
			checkExample(t, &b, k, r, p.ply, p.sym)
			syms[p.sym] = true
		}
		if len(syms) < 6 {
			t.Fatalf("64 draws used only symmetries %v", syms)
		}
	}
}

// TestWindowSampleIsUniform draws many positions from a small window and checks the counts per
// position and per symmetry against uniform with a chi-square bound.
func TestWindowSampleIsUniform(t *testing.T) {
	recs := testRecords(3, 21)
	w := newTestWindow(t, WindowOptions{}, recs[:1])
	n := w.Len()
	rng := rand.New(rand.NewPCG(2, 3))
	counts := map[[2]int]int{}
	symCounts := make([]int, env.NumSymmetries)
	draws := 200 * n
	for done := 0; done < draws; done += 256 {
		picks, err := w.draw(rng, 256)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range picks {
			counts[[2]int{p.game, p.ply}]++
			symCounts[p.sym]++
		}
	}
	total := 0
	for _, c := range counts {
		total += c
	}
	if len(counts) != n {
		t.Fatalf("%d of %d positions drawn", len(counts), n)
	}
	chi := func(cs []int, total int) float64 {
		e := float64(total) / float64(len(cs))
		x := 0.0
		for _, c := range cs {
			x += (float64(c) - e) * (float64(c) - e) / e
		}
		return x / float64(len(cs)-1) // ≈ 1 for uniform draws
	}
	var cs []int
	for _, c := range counts {
		cs = append(cs, c)
	}
	if x := chi(cs, total); x > 1.6 || x < 0.5 {
		t.Fatalf("positions: chi-square per degree of freedom %.2f", x)
	}
	if x := chi(symCounts, total); x > 3 {
		t.Fatalf("symmetries: chi-square per degree of freedom %.2f (%v)", x, symCounts)
	}
}

func TestWindowReproducible(t *testing.T) {
	recs := testRecords(8, 22)
	var batches [2]Batch
	for i := range batches {
		w := newTestWindow(t, WindowOptions{MaxReuse: 3}, recs)
		rng := rand.New(rand.NewPCG(42, 43))
		for j := 0; j < 3; j++ {
			if err := w.Sample(rng, 32, &batches[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !reflect.DeepEqual(batches[0], batches[1]) {
		t.Fatal("same seed, same window: different batches")
	}
	w := newTestWindow(t, WindowOptions{}, recs)
	var other Batch
	w.Sample(rand.New(rand.NewPCG(7, 7)), 32, &other)
	if reflect.DeepEqual(other.Policy, batches[0].Policy) {
		t.Fatal("different seeds gave the same batch")
	}
}

func TestWindowMaxReuse(t *testing.T) {
	recs := testRecords(6, 23)
	w := newTestWindow(t, WindowOptions{MaxReuse: 2}, recs[:2])
	n := w.Len()
	rng := rand.New(rand.NewPCG(4, 4))
	uses := map[[2]int]int{}
	var b Batch
	left := 2 * n
	for left > 0 {
		k := min(left, 1+rng.IntN(7))
		picks, err := w.draw(rng, k)
		if err != nil {
			t.Fatalf("%d draws left: %v", left, err)
		}
		for _, p := range picks {
			uses[[2]int{p.game, p.ply}]++
		}
		left -= k
	}
	for pos, u := range uses {
		if u != 2 {
			t.Fatalf("position %v drawn %d times, cap 2", pos, u)
		}
	}
	if len(uses) != n || w.Eligible() != 0 {
		t.Fatalf("%d positions drawn of %d; %d still eligible", len(uses), n, w.Eligible())
	}
	if err := w.Sample(rng, 1, &b); !errors.Is(err, ErrExhausted) {
		t.Fatalf("exhausted window: %v", err)
	}
	// New games bring new draws; a request larger than what is left draws nothing.
	if err := w.Add(recs[2]); err != nil {
		t.Fatal(err)
	}
	m := w.Eligible()
	if err := w.Sample(rng, 2*m+1, &b); !errors.Is(err, ErrExhausted) {
		t.Fatalf("oversized request: %v", err)
	}
	if w.Eligible() != m {
		t.Fatal("a refused request consumed draws")
	}
	if err := w.Sample(rng, 2*m, &b); err != nil {
		t.Fatal(err)
	}
	if _, err := NewWindow(WindowOptions{MaxReuse: 256}); err == nil {
		t.Fatal("MaxReuse 256 accepted")
	}
}

func TestWindowEvictionAndCompaction(t *testing.T) {
	recs := testRecords(150, 24)
	var finished []*Record
	for _, r := range recs {
		if r.Outcome != env.Ongoing {
			finished = append(finished, r)
		}
	}
	for _, opts := range []WindowOptions{{MaxPositions: 400, MaxReuse: 5}, {MaxGames: 7}} {
		w := newTestWindow(t, opts, nil)
		rng := rand.New(rand.NewPCG(5, 5))
		var b Batch
		for i, r := range finished {
			if err := w.Add(r); err != nil {
				t.Fatal(err)
			}
			// Which games are held: the newest ones, as many as the limits allow.
			held, pos := 0, 0
			for j := i; j >= 0; j-- {
				tt := finished[j].TrainingTargets()
				if held > 0 && ((opts.MaxPositions > 0 && pos+tt > opts.MaxPositions) || (opts.MaxGames > 0 && held+1 > opts.MaxGames)) {
					break
				}
				held++
				pos += tt
			}
			if w.Games() != held || w.Len() != pos {
				t.Fatalf("after %d games: window holds %d games %d positions, want %d and %d", i+1, w.Games(), w.Len(), held, pos)
			}
			// Draws after every addition land on the right records (offsets survive compaction).
			picks, err := w.draw(rng, 16)
			if err != nil {
				t.Fatal(err)
			}
			if err := build(picks, &b); err != nil {
				t.Fatal(err)
			}
			for k, p := range picks {
				checkExample(t, &b, k, finished[i+1-held+p.game], p.ply, p.sym)
			}
		}
		if w.g0 != 0 && 4*w.g0 >= len(w.games)-w.g0 && w.g0 >= 16 {
			t.Fatal("dead prefix not compacted")
		}
		if len(w.games) > 2*w.Games()+16 {
			t.Fatalf("%d game slots for %d games: compaction is not happening", len(w.games), w.Games())
		}
	}
}

func TestWindowRejects(t *testing.T) {
	recs := testRecords(3, 25)
	w := newTestWindow(t, WindowOptions{}, recs[:1])
	n, bytes := w.Len(), w.Bytes()
	bad := cloneRecord(recs[0])
	for i := range bad.Targets {
		if bad.Targets[i].IsTarget() && i > 20 {
			bad.Targets[i].Policy = []PolicyEntry{{Action: uint16(env.PassAction), Prob: 1}}
			break
		}
	}
	if err := w.Add(bad); err == nil {
		t.Fatal("illegal policy entry accepted")
	}
	bad = cloneRecord(recs[0])
	bad.Actions[40] = bad.Actions[0]
	if err := w.Add(bad); err == nil {
		t.Fatal("illegal action accepted")
	}
	if err := w.Add(recs[1]); err == nil { // unfinished
		t.Fatal("unfinished game accepted")
	}
	if w.Len() != n || w.Games() != 1 || w.Bytes() < bytes {
		t.Fatalf("refused games changed the window: %d positions, %d games", w.Len(), w.Games())
	}
	picks, err := w.draw(rand.New(rand.NewPCG(1, 1)), 64)
	if err != nil {
		t.Fatal(err)
	}
	var b Batch
	if err := build(picks, &b); err != nil {
		t.Fatal(err)
	}
	for k, p := range picks {
		checkExample(t, &b, k, recs[0], p.ply, p.sym)
	}
	empty := newTestWindow(t, WindowOptions{}, nil)
	if err := empty.Sample(rand.New(rand.NewPCG(1, 1)), 1, &b); !errors.Is(err, ErrExhausted) {
		t.Fatalf("empty window: %v", err)
	}
}

func TestWindowLoadDir(t *testing.T) {
	dir := t.TempDir()
	recs := testRecords(20, 26)
	writeShard(t, dir, 4, recs)
	var finished []*Record
	for _, r := range recs {
		if r.Outcome != env.Ongoing {
			finished = append(finished, r)
		}
	}
	newest := finished[len(finished)-3:]
	limit := 0
	for _, r := range newest {
		limit += r.TrainingTargets()
	}
	w := newTestWindow(t, WindowOptions{MaxPositions: limit}, nil)
	read, err := w.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if read >= 5 || w.Games() != 3 || w.Len() != limit {
		t.Fatalf("read %d shards; window holds %d games %d positions, want the newest 3 (%d positions)", read, w.Games(), w.Len(), limit)
	}
	picks, err := w.draw(rand.New(rand.NewPCG(1, 2)), 32)
	if err != nil {
		t.Fatal(err)
	}
	var b Batch
	if err := build(picks, &b); err != nil {
		t.Fatal(err)
	}
	for k, p := range picks {
		checkExample(t, &b, k, newest[p.game], p.ply, p.sym)
	}
	all := newTestWindow(t, WindowOptions{}, nil)
	if read, err := all.LoadDir(dir); err != nil || read != 5 || all.Games() != len(finished) {
		t.Fatalf("unlimited load: %d shards, %d games, %v", read, all.Games(), err)
	}
}

func TestWindowConcurrent(t *testing.T) {
	recs := testRecords(40, 27)
	w := newTestWindow(t, WindowOptions{MaxPositions: 300, MaxReuse: 50}, recs[:5])
	var wg sync.WaitGroup
	for g := 0; g < 3; g++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 1))
			var b Batch
			for i := 0; i < 20; i++ {
				if err := w.Sample(rng, 8, &b); err != nil && !errors.Is(err, ErrExhausted) {
					t.Error(err)
					return
				}
			}
		}(uint64(g))
	}
	for _, r := range recs[5:] {
		if r.Outcome != env.Ongoing {
			if err := w.Add(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	wg.Wait()
}

// fillWindow adds random games with policy targets over up to maxEntries actions until the window
// holds n training positions, and returns the live heap the window added (after GC).
func fillWindow(b *testing.B, n, maxEntries int) (*Window, uint64) {
	b.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w, err := NewWindow(WindowOptions{MaxPositions: n, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for id := uint64(0); w.Len() < n; id++ {
		r := randomRecord(rng, id, env.Standard, maxEntries)
		if maxEntries == 1 { // imported human games: every position a one-hot target
			for i := range r.Targets {
				r.Targets[i] = Target{Policy: OneHot(r.Actions[i])}
			}
		}
		if err := w.Add(r); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return w, after.HeapAlloc - before.HeapAlloc
}

// BenchmarkWindowSample fills a 500,000-position window and times drawing batches of 256 (the
// tensors included). It reports the window's memory per position (slice capacities, and the heap
// growth measured by the runtime) and the mean policy entries per position.
func BenchmarkWindowSample(b *testing.B) {
	for _, c := range []struct {
		name       string
		maxEntries int
	}{{"selfplay", 32}, {"onehot", 1}} {
		b.Run(c.name, func(b *testing.B) {
			const positions = 500_000
			w, heap := fillWindow(b, positions, c.maxEntries)
			rng := rand.New(rand.NewPCG(3, 4))
			var batch Batch
			for b.Loop() {
				if err := w.Sample(rng, 256, &batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(w.Bytes())/float64(w.Len()), "window-B/pos")
			b.ReportMetric(float64(heap)/float64(w.Len()), "heap-B/pos")
			b.ReportMetric(float64(len(w.entries)-w.e0)/float64(w.Len()), "entries/pos")
			b.ReportMetric(256*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
		})
	}
}

// TestWindowValueQMix checks the value target (1-m)·z + m·q with q the record's root WDL, z alone for
// positions without a root value, and that the default (m = 0) is the outcome alone.
func TestWindowValueQMix(t *testing.T) {
	recs := testRecords(6, 33)
	for _, r := range recs {
		for i := range r.Targets {
			if i%3 == 0 {
				r.Targets[i].RootWDL = [3]float32{} // unknown: z alone
			} else {
				r.Targets[i].RootWDL = [3]float32{0.6, 0.1, 0.3}
			}
		}
	}
	var live []*Record
	for _, r := range recs {
		if r.Outcome != env.Ongoing {
			live = append(live, r)
		}
	}
	if _, err := NewWindow(WindowOptions{ValueQMix: 1.5}); err == nil {
		t.Fatal("ValueQMix 1.5 accepted")
	}
	for _, m := range []float64{0, 0.5, 1} {
		w := newTestWindow(t, WindowOptions{ValueQMix: m}, recs)
		picks, err := w.draw(rand.New(rand.NewPCG(4, 5)), 64)
		if err != nil {
			t.Fatal(err)
		}
		var b Batch
		if err := build(picks, &b); err != nil {
			t.Fatal(err)
		}
		for k, p := range picks {
			r := live[p.game]
			s := env.NewState(r.Variant)
			for _, a := range r.Actions[:p.ply] {
				if err := s.ApplyAction(a); err != nil {
					t.Fatal(err)
				}
			}
			want := ValueFor(r.Outcome, s.CurrentPlayer())
			if q := r.Targets[p.ply].RootWDL; m > 0 && q != ([3]float32{}) {
				for i := range want {
					want[i] = float32(1-m)*want[i] + float32(m)*q[i]
				}
			}
			for i := range want {
				if got := b.WDL[3*k+i]; math.Abs(float64(got-want[i])) > 1e-4 {
					t.Fatalf("m=%v example %d (game %d ply %d): WDL %v, want %v", m, k, r.ID, p.ply, b.WDL[3*k:3*k+3], want)
				}
			}
		}
	}
}

// TestWindowUsesRestore checks that a window rebuilt from the same games with SetUses(Uses()) has the
// same draws left, position by position, as the one the counts were taken from.
func TestWindowUsesRestore(t *testing.T) {
	recs := testRecords(5, 29)
	a := newTestWindow(t, WindowOptions{MaxReuse: 3}, recs[:4])
	rng := rand.New(rand.NewPCG(8, 1))
	for i := 0; i < 5; i++ {
		if _, err := a.draw(rng, 1+a.Len()/3); err != nil {
			t.Fatal(err)
		}
	}
	saved := a.Uses()
	if len(saved) == 0 {
		t.Fatal("no counts after drawing")
	}
	// the restored window also holds a game the counts do not mention, and misses none
	b := newTestWindow(t, WindowOptions{MaxReuse: 3}, recs)
	found, err := b.SetUses(saved)
	if err != nil || found != len(saved) {
		t.Fatalf("SetUses: %d of %d games found, %v", found, len(saved), err)
	}
	fresh := newTestWindow(t, WindowOptions{MaxReuse: 3}, recs[4:])
	if got, want := b.Eligible(), a.Eligible()+fresh.Eligible(); got != want {
		t.Fatalf("restored window: %d eligible positions, want %d", got, want)
	}
	if got, want := b.budget, a.budget+fresh.budget; got != want {
		t.Fatalf("restored window: %d draws left, want %d", got, want)
	}
	left := func(w *Window) map[[2]uint64]int {
		out := map[[2]uint64]int{}
		for _, ti := range w.eligible {
			tg := w.targets[ti]
			out[[2]uint64{w.games[tg.game].id, uint64(tg.ply)}] = 3 - int(tg.uses)
		}
		return out
	}
	la, lb := left(a), left(b)
	for k, v := range la {
		if lb[k] != v {
			t.Fatalf("position %v: %d draws left after restore, %d before", k, lb[k], v)
		}
	}
	// counts for a game with another number of positions are refused
	bad := []GameUses{{ID: saved[0].ID, Uses: append(saved[0].Uses, 0)}}
	if _, err := b.SetUses(bad); err == nil {
		t.Fatal("counts of the wrong length accepted")
	}
}
