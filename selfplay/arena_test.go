package selfplay

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/yinsh-zero/yinsh/env"
	"github.com/yinsh-zero/yinsh/model"
	"github.com/yinsh-zero/yinsh/model/gonum"
)

// checkpointFile writes a freshly initialised tiny network to dir and returns its path.
// loadGonum is the backend of the tests' checkpoint players (selfplay links none).
func loadGonum(path string) (model.Net, error) { return gonum.Load(path) }

func checkpointFile(t *testing.T, dir string, seed uint64) string {
	t.Helper()
	cfg, err := model.Preset("tiny")
	if err != nil {
		t.Fatal(err)
	}
	net, err := gonum.New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("net-%d.ckpt", seed))
	if err := net.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// matchGames plays a match and returns its result and games, in game order.
func matchGames(t *testing.T, a, b PlayerFactory, opts MatchOptions) (MatchResult, []GameRecord) {
	t.Helper()
	games := make([]GameRecord, opts.Games)
	opts.OnGame = func(_ int, _ MatchResult, g GameRecord) error {
		games[g.Game] = g
		return nil
	}
	res, err := Match(context.Background(), a, b, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, games
}

func distinctGames(games []GameRecord) int {
	seen := map[string]bool{}
	for _, g := range games {
		seen[fmt.Sprint(g.Actions)] = true
	}
	return len(seen)
}

// Two deterministic players (networks without noise or rollouts) repeat the same two games from one
// start; paired random openings make every game of the match distinct.
func TestMatchOfDeterministicPlayersHasDistinctGames(t *testing.T) {
	dir := t.TempDir()
	popts := PlayerOptions{Search: Search{Sims: 4}, Variant: env.Blitz, Parallel: 2, Load: loadGonum}
	a, err := ParsePlayer(checkpointFile(t, dir, 1), popts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParsePlayer(checkpointFile(t, dir, 2), popts)
	if err != nil {
		t.Fatal(err)
	}
	res, games := matchGames(t, a, b, MatchOptions{Games: 40, Parallel: 2, Seed: 3, Variant: env.Blitz, OpeningPlies: DefaultOpeningPlies})
	if n := distinctGames(games); n != 40 {
		t.Errorf("%d distinct games of 40", n)
	}
	if p := res.Pairs; p[0]+p[1]+p[2]+p[3]+p[4] != 20 {
		t.Errorf("pairs %v, want 20", p)
	}
	for i, g := range games {
		if g.Pair != i/2 || g.AWhite != (i%2 == 0) || len(g.Opening.Actions) != DefaultOpeningPlies {
			t.Fatalf("game %d: pair %d, A white %v, opening %v", i, g.Pair, g.AWhite, g.Opening)
		}
		if i%2 == 1 && fmt.Sprint(g.Opening.Actions) != fmt.Sprint(games[i-1].Opening.Actions) {
			t.Fatalf("game %d's opening %v differs from its pair's %v", i, g.Opening, games[i-1].Opening)
		}
		if fmt.Sprint(g.Actions[:DefaultOpeningPlies]) != fmt.Sprint(g.Opening.Actions) {
			t.Fatalf("game %d does not start with its opening", i)
		}
	}
	// without openings the same players play 2 distinct games: what the test guards against
	_, games = matchGames(t, a, b, MatchOptions{Games: 8, Parallel: 2, Seed: 3, Variant: env.Blitz})
	if n := distinctGames(games); n != 2 {
		t.Errorf("without openings %d distinct games of 8, want 2 (deterministic players)", n)
	}
}

func TestMatchPairsAndScores(t *testing.T) {
	for _, games := range []int{10, 11} {
		res, gs := matchGames(t, heuristicFactory, randomFactory, MatchOptions{Games: games, Parallel: 3, Seed: 2, Variant: env.Blitz, OpeningPlies: 2})
		var points float64
		for _, g := range gs {
			points += g.ScoreA()
		}
		var pairPoints float64
		pairs := 0
		for k, n := range res.Pairs {
			pairs += n
			pairPoints += float64(k) / 2 * float64(n)
		}
		if pairs != games/2 {
			t.Errorf("%d games: %d pairs", games, pairs)
		}
		if games%2 == 1 {
			pairPoints += gs[games-1].ScoreA() // the unpaired last game
		}
		if points != float64(res.Wins)+0.5*float64(res.Draws) || pairPoints != points {
			t.Errorf("%d games: points %v, pair points %v, result %+v", games, points, pairPoints, res)
		}
		if res.Times[0].Moves == 0 || res.Times[1].Moves == 0 || res.Times[0].Max < res.Times[0].Mean() {
			t.Errorf("times %+v", res.Times)
		}
	}
}

// TestMatchStop: a match whose Stop answers true once 3 pairs are complete ends early with every
// started pair complete: exactly 3 pairs at one game at a time, at most the pairs in flight more at
// 3 at once; a Stop that never answers true plays every game.
func TestMatchStop(t *testing.T) {
	for _, par := range []int{1, 3} {
		calls := 0
		stop := func(r MatchResult) bool {
			calls++
			n := 0
			for _, k := range r.Pairs {
				n += k
			}
			return n >= 3
		}
		res, err := Match(context.Background(), heuristicFactory, randomFactory, MatchOptions{Games: 40, Parallel: par, Seed: 2, Variant: env.Blitz, OpeningPlies: 2, Stop: stop})
		if err != nil {
			t.Fatal(err)
		}
		pairs := 0
		for _, k := range res.Pairs {
			pairs += k
		}
		if 2*pairs != res.Games() || pairs < 3 || pairs > 3+par || (par == 1 && pairs != 3) {
			t.Errorf("parallel %d: %d games, %d pairs (%v) after %d Stop calls; want 3 pairs (at most %d in flight more), all complete", par, res.Games(), pairs, res.Pairs, calls, par)
		}
	}
	res, err := Match(context.Background(), heuristicFactory, randomFactory, MatchOptions{Games: 10, Parallel: 3, Seed: 2, Variant: env.Blitz, Stop: func(MatchResult) bool { return false }})
	if err != nil || res.Games() != 10 {
		t.Errorf("a Stop that never stops: %d games, %v", res.Games(), err)
	}
}

func TestRandomOpenings(t *testing.T) {
	a := RandomOpening(5, 3, 4, env.Standard)
	b := RandomOpening(5, 3, 4, env.Standard)
	c := RandomOpening(5, 4, 4, env.Standard)
	if fmt.Sprint(a.Actions) != fmt.Sprint(b.Actions) || len(a.Actions) != 4 {
		t.Fatalf("not reproducible: %v %v", a, b)
	}
	if fmt.Sprint(a.Actions) == fmt.Sprint(c.Actions) {
		t.Fatalf("pairs 3 and 4 share an opening %v", a)
	}
	if o := RandomOpening(5, 3, 12, env.Standard); len(o.Actions) != MaxOpeningPlies {
		t.Fatalf("12 plies gave %d actions, want the %d placements", len(o.Actions), MaxOpeningPlies)
	}
	s, err := a.Start(env.Standard)
	if err != nil || s.Phase() != env.PhasePlace || s.Ply() != 4 {
		t.Fatalf("start %v %v", s, err)
	}
}

func TestReadOpenings(t *testing.T) {
	pos := RandomOpening(1, 0, 10, env.Blitz)
	st, _ := pos.Start(env.Blitz)
	text := "# openings\n\ne5 f6 e6\n" + st.Text() + "  # a position\n"
	os, err := ReadOpenings(strings.NewReader(text), "book.txt", env.Blitz)
	if err != nil {
		t.Fatal(err)
	}
	if len(os) != 2 || len(os[0].Actions) != 3 || os[0].Source != "book.txt:3" || os[1].Position != st.Text() {
		t.Fatalf("%+v", os)
	}
	for _, bad := range []struct{ text, want string }{
		{"e5 e5\n", "book.txt: line 1: ply 2"},
		{"e5\nzz9\n", `book.txt: line 2: token 1 "zz9"`},
		{strings.Repeat("W", 6) + strings.Repeat(".", env.NumPoints-6) + " w 0-0\n", "book.txt: line 1: position"},
		{"# nothing\n", "no openings"},
	} {
		if _, err := ReadOpenings(strings.NewReader(bad.text), "book.txt", env.Blitz); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.text, err, bad.want)
		}
	}
}

// forfeiter forfeits on its n-th decision.
type forfeiter struct {
	*Random
	n, calls int
}

func (f *forfeiter) Decide(s *env.State) (Decision, error) {
	if f.calls++; f.calls == f.n {
		return Decision{}, fmt.Errorf("engine timed out: %w", ErrForfeit)
	}
	return f.Random.Decide(s)
}

func TestForfeitLosesTheGameOnly(t *testing.T) {
	b := func(seed uint64) (Player, error) { return &forfeiter{Random: NewRandom(seed), n: 3}, nil }
	res, games := matchGames(t, randomFactory, b, MatchOptions{Games: 6, Parallel: 2, Seed: 1, Variant: env.Blitz})
	if res.Wins != 6 || res.Forfeits != [2]int{0, 6} {
		t.Fatalf("%+v", res)
	}
	for _, g := range games {
		if g.Forfeit < 0 || !strings.Contains(g.Reason, "timed out") || g.ScoreA() != 1 {
			t.Fatalf("game %+v", g)
		}
	}
	// any other error stops the match
	bad := func(seed uint64) (Player, error) { return nil, errors.New("no such engine") }
	if _, err := Match(context.Background(), randomFactory, bad, MatchOptions{Games: 2, Variant: env.Blitz}); err == nil {
		t.Fatal("a failing factory did not stop the match")
	}
}

// observer records what PlayGame tells it.
type observer struct {
	*Random
	mu   *sync.Mutex
	seen *[]env.Action
}

func (o observer) Observe(a env.Action) {
	o.mu.Lock()
	*o.seen = append(*o.seen, a)
	o.mu.Unlock()
}

func TestObserversSeeEveryAction(t *testing.T) {
	var mu sync.Mutex
	var seen []env.Action
	f := func(seed uint64) (Player, error) { return observer{NewRandom(seed), &mu, &seen}, nil }
	_, games := matchGames(t, f, randomFactory, MatchOptions{Games: 1, Seed: 1, Variant: env.Blitz, OpeningPlies: 3})
	if fmt.Sprint(seen) != fmt.Sprint(games[0].Actions) {
		t.Fatalf("observed %v\ngame     %v", seen, games[0].Actions)
	}
}

func TestRecordLinesRoundTrip(t *testing.T) {
	_, games := matchGames(t, heuristicFactory, randomFactory, MatchOptions{Games: 4, Parallel: 2, Seed: 7, Variant: env.Blitz, OpeningPlies: 4})
	games[1].Forfeit, games[1].Reason = int(env.Black), `engine "x y" crashed # exit 3`
	st, _ := RandomOpening(1, 0, 10, env.Blitz).Start(env.Blitz)
	games[2].Opening = Opening{Position: st.Text()}
	var b strings.Builder
	b.WriteString(RecordHeader + ": test\n")
	for _, g := range games {
		b.WriteString(g.Line(env.Blitz) + "\n")
	}
	if !IsRecordFile([]byte(b.String())) {
		t.Fatal("header not recognised")
	}
	rs, err := ReadRecords(strings.NewReader(b.String()), "rec.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 {
		t.Fatalf("%d games read", len(rs))
	}
	for i, r := range rs {
		g := games[i]
		if r.Game != i+1 || r.Pair != i/2+1 || r.White != g.White || r.Black != g.Black || r.Result != g.Outcome ||
			fmt.Sprint(r.Actions) != fmt.Sprint(g.Actions) || r.Variant != env.Blitz || r.Line != i+2 || r.Start != g.Opening.Position {
			t.Errorf("game %d: read %+v\nwrote %+v", i, r, g)
		}
	}
	if rs[1].Forfeit != "black" || rs[1].Reason != games[1].Reason {
		t.Errorf("forfeit %q %q", rs[1].Forfeit, rs[1].Reason)
	}
	// every line is also a plain token list
	toks, err := env.ReadTokens(strings.NewReader(games[0].Line(env.Blitz)))
	if err != nil || len(toks) != len(games[0].Actions) {
		t.Errorf("tokens %d, %v", len(toks), err)
	}
	for _, bad := range []struct{ line, want string }{
		{"e5 # game=1 pair=1 variant=blitz white=\"a\" black=\"b\" result=white", "missing field opening="},
		{"e5 # game=1 pair=1 variant=chess white=a black=b result=white opening=0", "variant"},
		{"e5 # game=1 pair=1 variant=blitz white=a black=b result=won opening=0", "result"},
		{"e5 # game=1 pair=1 variant=blitz white=\"a black=b result=white opening=0", "bad quoted value"},
		{"e5 # game=1 game=2", "given twice"},
		{"e5 # game=x pair=1 variant=blitz white=a black=b result=white opening=0", "want a count"},
		{"e5 # game=1 pair=1 variant=blitz white=a black=b result=white opening=2", "only 1 actions"},
		{"zz9 # game=1", "zz9"},
	} {
		if _, err := ReadRecords(strings.NewReader(bad.line), "rec.txt"); err == nil || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), "rec.txt: line 1") {
			t.Errorf("%q: error %v, want %q", bad.line, err, bad.want)
		}
	}
}

func FuzzReadRecords(f *testing.F) {
	f.Add("e5 f6 # game=1 pair=1 variant=blitz white=\"a\" black=\"b\" result=white opening=1")
	f.Add("# game=1 pair=1 variant=standard white=a black=b result=draw opening=0 start=\"x\" forfeit=white reason=\"\\\"\"")
	f.Add("e5 # = == a=\"\\x\"")
	f.Fuzz(func(t *testing.T, s string) {
		rs, err := ReadRecords(strings.NewReader(s), "f")
		if err == nil {
			for _, r := range rs {
				_, _ = r.StartState()
			}
		}
	})
}

func FuzzReadOpenings(f *testing.F) {
	f.Add("e5 f6\n")
	f.Add(strings.Repeat(".", env.NumPoints) + " w 0-0 m\n")
	f.Fuzz(func(t *testing.T, s string) {
		os, err := ReadOpenings(strings.NewReader(s), "f", env.Standard)
		if err == nil {
			for _, o := range os {
				if _, err := o.Start(env.Standard); err != nil {
					t.Fatalf("an accepted opening does not start: %v", err)
				}
			}
		}
	})
}
