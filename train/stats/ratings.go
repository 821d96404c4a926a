package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Match is the result of games between players A and B, from A's view: A won Wins, drew Draws
// and lost Losses. Several Matches of the same two players (in either order) add up.
type Match struct {
	A, B                string
	Wins, Draws, Losses int
}

// DefaultVirtualDraws is BayesElo's default prior: two virtual draws between each pair of
// players that played each other.
const DefaultVirtualDraws = 2

// RatingOptions configures FitRatings.
type RatingOptions struct {
	// Anchor names the player whose rating is fixed at 0; every other rating is relative to it.
	Anchor string
	// VirtualDraws is the prior: that many virtual draws are added between every two players
	// that played at least one game against each other. 0 means DefaultVirtualDraws; a negative
	// value means no prior (plain maximum likelihood, which has no finite solution when a player
	// won or lost every game).
	VirtualDraws float64
	// FixDrawElo keeps drawElo at DrawElo (≥ 0) instead of fitting it, as bayeselo's plain mm
	// does. A fitted drawElo has no finite estimate when no game was lost by the stronger side of
	// any pair (wins and draws only): FitRatingsFallback then fixes it.
	FixDrawElo bool
	DrawElo    float64
}

// Rating is one player's fitted rating. Elo, Low and High are on BayesElo's scale (see
// FitRatings), relative to the anchor.
type Rating struct {
	Player string
	Elo    float64
	// Low and High bound the 95% interval, Elo ∓ z·StdErr.
	Low, High float64
	// StdErr is the standard error of Elo − anchor's, from the inverse Hessian (0 for the anchor).
	StdErr float64
	// Games counts the player's real games (virtual draws excluded).
	Games int
}

// RatingFit is the result of FitRatings.
type RatingFit struct {
	// Ratings lists every player, highest Elo first (ties by name), the anchor at 0.
	Ratings []Rating
	// DrawElo is the fitted draw parameter (≥ 0) and DrawEloStdErr its standard error; with no
	// draw at all and no prior the model is plain Bradley–Terry and DrawElo is 0.
	DrawElo, DrawEloStdErr float64
	// Scale is BayesElo's display scale for this DrawElo, 4x/(1+x)² with x = 10^(−DrawElo/400):
	// a rating difference Δ on the model's scale gives the expected score of a logistic-Elo
	// difference of about Scale·Δ near Δ = 0, so Scale·Elo is comparable to the Elo of a match
	// (bayeselo shows ratings multiplied by it). It is 1 when DrawElo is 0.
	Scale float64
	// LogPosterior is the maximised log-likelihood plus log-prior.
	LogPosterior float64
	// Iterations counts the Newton steps taken.
	Iterations int
}

// Rating returns the named player's rating.
func (f *RatingFit) Rating(player string) (Rating, bool) {
	for _, r := range f.Ratings {
		if r.Player == player {
			return r, true
		}
	}
	return Rating{}, false
}

// BayesEloProbs returns the probabilities that A wins, draws and loses a game against B when A
// is rated delta above B on BayesElo's scale with draw parameter drawElo ≥ 0:
//
//	P(win) = E(delta − drawElo), P(loss) = E(−delta − drawElo), P(draw) = 1 − P(win) − P(loss),
//
// E the logistic expected score of ExpectedScore (stat_util.bayeselo_to_proba). There is no
// first-move advantage term: colours are assumed balanced.
func BayesEloProbs(delta, drawElo float64) (win, draw, loss float64) {
	win = ExpectedScore(delta - drawElo)
	loss = ExpectedScore(-delta - drawElo)
	return win, 1 - win - loss, loss
}

// kElo is the slope of the logistic on the Elo scale: E(d) = σ(kElo·d), σ(x) = 1/(1+e^(−x)).
const kElo = math.Ln10 / 400

// FitRatings fits every player's rating to the matches with BayesElo's model and prior.
//
// Model: a game between A and B, A rated Δ = r_A − r_B above B, is won, drawn or lost with the
// probabilities of BayesEloProbs(Δ, drawElo); ratings and drawElo ≥ 0 are fitted together. The
// ratings are on the model's scale ("BayesElo"): with draws, a rating difference Δ is worth a
// little less expected score than a logistic Elo difference Δ; RatingFit.Scale converts.
//
// Prior: as bayeselo's, VirtualDraws virtual draws (default 2) are added between every two
// players that actually played each other, and only between those. They keep the posterior
// finite when a player won or lost all its games, shrinking each observed difference toward 0
// by an amount set by that pair's own games. There are no virtual games against the anchor (the
// old rating fit gave every player one virtual draw against it): such a prior pulls every rating
// toward the anchor with a force that does not weaken along a chain of opponents, so a ladder of
// generations, each playing only the previous one, flattens out at the top, and a player that
// only played the generation below it is rated as if it had drawn the anchor. With pairwise
// virtual draws a rating is carried along the chain of opponents: each generation that beats
// the previous one is rated above it by what their own games say, and ratings keep rising with
// the ladder. What remains is the pull of the virtual draws of pairs that did play: a sweep of
// a much weaker opponent (10-0 against random) bounds the gap from below only, so that pair's
// virtual draws set how far above it the winner ends up (an n-0 sweep alone puts the winner
// about drawElo + 400·log10(n/VirtualDraws) above the loser), and every player that swept the
// anchor is pulled toward it (in the ladder test where every generation also beat the anchor 10-0, the
// lowest generation is rated 60 instead of about 385, though the ladder still rises strictly).
// Link players to opponents of similar strength to rate them well. The virtual draws enter
// drawElo's fit too, as in bayeselo, and push it up a little for small samples.
//
// Fit: the log-posterior is concave in the ratings and drawElo (the model is an ordered logit),
// so Newton's method with a backtracking line search finds its unique maximum. The 95% interval
// of a rating is Elo ± z·sqrt(C_ii), C the inverse of the negative Hessian of the log-posterior
// at the maximum (ratings other than the anchor's, and drawElo): the Laplace approximation of
// the posterior of each rating relative to the anchor.
//
// Errors: no matches, a negative count, a match of a player with itself or with an empty name,
// no anchor, an anchor without games, players with no chain of games to the anchor (they are
// named; they cannot be rated relative to it, so FitRatings refuses rather than leave them out),
// no decisive game although there are draws (drawElo would be infinite), or no finite maximum
// (only without a prior).
func FitRatings(matches []Match, opt RatingOptions) (*RatingFit, error) {
	if len(matches) == 0 {
		return nil, errors.New("stats: no match results to rate")
	}
	if opt.Anchor == "" {
		return nil, errors.New("stats: no anchor player given")
	}
	virtual := opt.VirtualDraws
	if virtual == 0 {
		virtual = DefaultVirtualDraws
	} else if virtual < 0 {
		virtual = 0
	}
	// players in order of first appearance
	idx := map[string]int{}
	var names []string
	player := func(name string) int {
		i, ok := idx[name]
		if !ok {
			i = len(names)
			idx[name] = i
			names = append(names, name)
		}
		return i
	}
	type key struct{ i, j int }
	agg := map[key]*pairObs{}
	var order []key
	for _, m := range matches {
		if m.A == "" || m.B == "" {
			return nil, fmt.Errorf("stats: match %q vs %q: empty player name", m.A, m.B)
		}
		if m.A == m.B {
			return nil, fmt.Errorf("stats: match of %q against itself", m.A)
		}
		if m.Wins < 0 || m.Draws < 0 || m.Losses < 0 {
			return nil, fmt.Errorf("stats: match %q vs %q: negative count in %d-%d-%d", m.A, m.B, m.Wins, m.Draws, m.Losses)
		}
		a, b := player(m.A), player(m.B)
		w, d, l := float64(m.Wins), float64(m.Draws), float64(m.Losses)
		if a > b { // store from the view of the lower index
			a, b, w, l = b, a, l, w
		}
		k := key{a, b}
		p, ok := agg[k]
		if !ok {
			p = &pairObs{i: a, j: b}
			agg[k] = p
			order = append(order, k)
		}
		p.w += w
		p.d += d
		p.l += l
	}
	anchor, ok := idx[opt.Anchor]
	if !ok {
		return nil, fmt.Errorf("stats: anchor %q has no results", opt.Anchor)
	}
	n := len(names)
	games := make([]int, n)
	adj := make([][]int, n)
	var pairs []pairObs
	var draws, decisive float64
	for _, k := range order {
		p := *agg[k]
		g := p.w + p.d + p.l
		if g == 0 {
			continue
		}
		games[p.i] += int(g)
		games[p.j] += int(g)
		adj[p.i] = append(adj[p.i], p.j)
		adj[p.j] = append(adj[p.j], p.i)
		draws += p.d
		decisive += p.w + p.l
		p.d += virtual
		pairs = append(pairs, p)
	}
	if games[anchor] == 0 {
		return nil, fmt.Errorf("stats: anchor %q has no games", opt.Anchor)
	}
	// every player must be linked to the anchor by a chain of games
	seen := make([]bool, n)
	seen[anchor] = true
	queue := []int{anchor}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for _, u := range adj[v] {
			if !seen[u] {
				seen[u] = true
				queue = append(queue, u)
			}
		}
	}
	var cut []string
	for i, s := range seen {
		if !s {
			cut = append(cut, names[i])
		}
	}
	if len(cut) > 0 {
		sort.Strings(cut)
		return nil, fmt.Errorf("stats: no chain of games links %s to the anchor %q", strings.Join(cut, ", "), opt.Anchor)
	}
	if decisive == 0 {
		return nil, errors.New("stats: every game was drawn: drawElo has no finite estimate")
	}
	if virtual == 0 {
		if unbounded := unboundedPlayers(n, anchor, pairs, names); len(unbounded) > 0 {
			return nil, fmt.Errorf("stats: with no prior (VirtualDraws < 0) the ratings of %s are infinite: "+
				"a group of players won or lost every game against the rest", strings.Join(unbounded, ", "))
		}
	}
	if opt.FixDrawElo && !(opt.DrawElo >= 0 && opt.DrawElo < 2000) {
		return nil, fmt.Errorf("stats: fixed drawElo %g, want 0..2000", opt.DrawElo)
	}
	m := &ratingModel{n: n, anchor: anchor, pairs: pairs, fitDraw: !opt.FixDrawElo && draws+virtual*float64(len(pairs)) > 0}
	if opt.FixDrawElo {
		m.fixedDraw = opt.DrawElo
	}
	m.index()
	theta, iters, err := m.maximise(draws+virtual*float64(len(pairs)), decisive)
	if err != nil {
		return nil, err
	}
	np := len(theta)
	grad := make([]float64, np)
	hess := mat.NewSymDense(np, nil)
	logPost := m.eval(theta, grad, hess)
	var negH mat.SymDense
	negH.ScaleSym(-1, hess)
	var chol mat.Cholesky
	if !chol.Factorize(&negH) {
		return nil, errors.New("stats: the rating fit's Hessian is not negative definite at its maximum")
	}
	var cov mat.SymDense
	if err := chol.InverseTo(&cov); err != nil {
		return nil, fmt.Errorf("stats: inverting the rating fit's Hessian: %w", err)
	}
	fit := &RatingFit{LogPosterior: logPost, Iterations: iters, Scale: 1}
	for p := range n {
		r := Rating{Player: names[p], Games: games[p]}
		if q := m.param[p]; q >= 0 {
			r.Elo = theta[q]
			r.StdErr = math.Sqrt(math.Max(cov.At(q, q), 0))
		}
		r.Low, r.High = r.Elo-Z95*r.StdErr, r.Elo+Z95*r.StdErr
		fit.Ratings = append(fit.Ratings, r)
	}
	if m.fitDraw {
		fit.DrawElo = theta[np-1]
		fit.DrawEloStdErr = math.Sqrt(math.Max(cov.At(np-1, np-1), 0))
	} else {
		fit.DrawElo = m.fixedDraw
	}
	if fit.DrawElo > 0 {
		x := math.Pow(10, -fit.DrawElo/400)
		fit.Scale = 4 * x / ((1 + x) * (1 + x))
	}
	slices.SortStableFunc(fit.Ratings, func(a, b Rating) int {
		if a.Elo != b.Elo {
			if a.Elo > b.Elo {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Player, b.Player)
	})
	return fit, nil
}

// unboundedPlayers returns the players (sorted) that break the condition for finite maximum
// likelihood ratings (Zermelo, Ford): in the graph with an edge u → v whenever v won or drew a
// game against u, every player must reach every other. It checks reachability from the anchor
// along the edges and against them.
func unboundedPlayers(n, anchor int, pairs []pairObs, names []string) []string {
	fwd, rev := make([][]int, n), make([][]int, n)
	edge := func(u, v int) { fwd[u] = append(fwd[u], v); rev[v] = append(rev[v], u) }
	for _, p := range pairs { // from i's view: w, d are i's points against j
		if p.w+p.d > 0 {
			edge(p.j, p.i)
		}
		if p.l+p.d > 0 {
			edge(p.i, p.j)
		}
	}
	reach := func(adj [][]int) []bool {
		seen := make([]bool, n)
		seen[anchor] = true
		stack := []int{anchor}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, u := range adj[v] {
				if !seen[u] {
					seen[u] = true
					stack = append(stack, u)
				}
			}
		}
		return seen
	}
	f, r := reach(fwd), reach(rev)
	var out []string
	for i := range n {
		if !f[i] || !r[i] {
			out = append(out, names[i])
		}
	}
	sort.Strings(out)
	return out
}

// pairObs holds the games of players i < j from i's view; d includes the virtual draws.
type pairObs struct {
	i, j    int
	w, d, l float64
}

// ratingModel is the log-posterior of FitRatings as a function of the parameter vector θ: the
// ratings of every player but the anchor, in player order, then drawElo when fitDraw.
type ratingModel struct {
	n, anchor int
	pairs     []pairObs
	fitDraw   bool
	fixedDraw float64 // drawElo when not fitted
	param     []int   // θ index of each player's rating, -1 for the anchor
	size      int
}

func (m *ratingModel) index() {
	m.param = make([]int, m.n)
	q := 0
	for p := range m.n {
		if p == m.anchor {
			m.param[p] = -1
			continue
		}
		m.param[p] = q
		q++
	}
	m.size = q
	if m.fitDraw {
		m.size++
	}
}

func (m *ratingModel) rating(theta []float64, p int) float64 {
	if q := m.param[p]; q >= 0 {
		return theta[q]
	}
	return 0
}

func (m *ratingModel) drawElo(theta []float64) float64 {
	if m.fitDraw {
		return theta[m.size-1]
	}
	return m.fixedDraw
}

// eval returns the log-posterior at θ and, when grad (len size) and hess are not nil, fills
// them with its gradient and Hessian. drawElo must be > 0 when fitted.
func (m *ratingModel) eval(theta, grad []float64, hess *mat.SymDense) float64 {
	D := m.drawElo(theta)
	dq := m.size - 1 // θ index of drawElo when fitted
	if grad != nil {
		clear(grad)
	}
	if hess != nil {
		for a := range m.size {
			for b := a; b < m.size; b++ {
				hess.SetSym(a, b, 0)
			}
		}
	}
	var f float64
	for _, p := range m.pairs {
		delta := m.rating(theta, p.i) - m.rating(theta, p.j)
		t := pairLogLik(delta, D, p.w, p.d, p.l)
		f += t.f
		if grad == nil {
			continue
		}
		qi, qj := m.param[p.i], m.param[p.j]
		// ∂Δ/∂r_i = 1, ∂Δ/∂r_j = −1
		if qi >= 0 {
			grad[qi] += t.gd
		}
		if qj >= 0 {
			grad[qj] -= t.gd
		}
		if m.fitDraw {
			grad[dq] += t.gD
		}
		if hess == nil {
			continue
		}
		add := func(a, b int, v float64) { hess.SetSym(a, b, hess.At(a, b)+v) }
		if qi >= 0 {
			add(qi, qi, t.hdd)
		}
		if qj >= 0 {
			add(qj, qj, t.hdd)
		}
		if qi >= 0 && qj >= 0 {
			add(qi, qj, -t.hdd)
		}
		if m.fitDraw {
			if qi >= 0 {
				add(qi, dq, t.hdD)
			}
			if qj >= 0 {
				add(qj, dq, -t.hdD)
			}
			add(dq, dq, t.hDD)
		}
	}
	return f
}

// pairTerms are one pair's log-likelihood and its derivatives in Δ (d) and drawElo (D).
type pairTerms struct{ f, gd, gD, hdd, hdD, hDD float64 }

// pairLogLik returns w·log P(win) + d·log P(draw) + l·log P(loss) for a rating difference delta
// and drawElo D (BayesEloProbs), with its first and second derivatives. With P(win) = σ(u),
// u = k(Δ−D), and P(loss) = σ(v), v = k(−Δ−D):
//
//	∂ log P(win) = k(1−P(win))·(∂Δ − ∂D),  ∂ log P(loss) = −k(1−P(loss))·(∂Δ + ∂D),
//
// and P(draw) = 1 − P(win) − P(loss) is differentiated through g = P(1−P), ∂P = ±k·g.
func pairLogLik(delta, D, w, d, l float64) pairTerms {
	k := kElo
	u, v := k*(delta-D), k*(-delta-D)
	pw, qw := sigmoid(u), sigmoid(-u)
	pl, ql := sigmoid(v), sigmoid(-v)
	gw, gl := pw*qw, pl*ql
	var t pairTerms
	if w > 0 {
		t.f += w * logSigmoid(u)
		t.gd += w * k * qw
		t.gD -= w * k * qw
		t.hdd -= w * k * k * gw
		t.hdD += w * k * k * gw
		t.hDD -= w * k * k * gw
	}
	if l > 0 {
		t.f += l * logSigmoid(v)
		t.gd -= l * k * ql
		t.gD -= l * k * ql
		t.hdd -= l * k * k * gl
		t.hdD -= l * k * k * gl
		t.hDD -= l * k * k * gl
	}
	if d > 0 {
		// P(draw) = σ(k(D−Δ)) − σ(−k(D+Δ)) = σ(−u) − σ(v); with a = −u > v:
		// log P(draw) = v + log(expm1(a−v)) − softplus(a) − softplus(v)
		a := -u
		logPd := v + math.Log(math.Expm1(a-v)) - softplus(a) - softplus(v)
		pd := math.Exp(logPd)
		cw, cl := gw*(1-2*pw), gl*(1-2*pl)
		dd := k * (gl - gw) / pd
		dD := k * (gw + gl) / pd
		sdd := -k * k * (cl + cw) / pd
		sdD := k * k * (cw - cl) / pd
		sDD := -k * k * (cw + cl) / pd
		t.f += d * logPd
		t.gd += d * dd
		t.gD += d * dD
		t.hdd += d * (sdd - dd*dd)
		t.hdD += d * (sdD - dd*dD)
		t.hDD += d * (sDD - dD*dD)
	}
	return t
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// softplus returns log(1 + e^x) without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

func logSigmoid(x float64) float64 { return -softplus(-x) }

// maximise runs Newton's method with a backtracking line search from all ratings 0 and the
// drawElo of the overall draw rate, and returns the maximiser and the number of steps.
func (m *ratingModel) maximise(draws, decisive float64) ([]float64, int, error) {
	theta := make([]float64, m.size)
	if m.fitDraw {
		// P(draw | Δ = 0) = tanh(k·D/2)
		rate := math.Min(math.Max(draws/(draws+decisive), 0.01), 0.9)
		theta[m.size-1] = 2 * math.Atanh(rate) / kElo
	}
	grad := make([]float64, m.size)
	step := make([]float64, m.size)
	cand := make([]float64, m.size)
	hess := mat.NewSymDense(m.size, nil)
	var negH mat.SymDense
	var chol mat.Cholesky
	f := m.eval(theta, grad, hess)
	for it := 1; it <= 200; it++ {
		negH.ScaleSym(-1, hess)
		// The Hessian is negative semi-definite; should it be singular to rounding, damp it.
		for damp := 0.0; ; {
			if chol.Factorize(&negH) {
				break
			}
			if damp == 0 {
				damp = 1e-10
			} else {
				damp *= 100
			}
			if damp > 1e6 {
				return nil, it, errors.New("stats: the rating fit's Hessian is singular")
			}
			negH.ScaleSym(-1, hess)
			for q := range m.size {
				negH.SetSym(q, q, negH.At(q, q)+damp)
			}
		}
		dir := mat.NewVecDense(m.size, step)
		if err := chol.SolveVecTo(dir, mat.NewVecDense(m.size, grad)); err != nil {
			return nil, it, fmt.Errorf("stats: rating fit Newton step: %w", err)
		}
		dec := 0.0 // gᵀ(−H)⁻¹g: twice the predicted gain
		for q := range grad {
			dec += grad[q] * step[q]
		}
		if dec < 1e-18 {
			return theta, it - 1, nil
		}
		// take the full step near the maximum, where the gain is below the rounding of f
		t := 1.0
		for {
			for q := range cand {
				cand[q] = theta[q] + t*step[q]
			}
			if !m.fitDraw || cand[m.size-1] > 0 {
				fc := m.eval(cand, nil, nil)
				if dec < 1e-8 || fc >= f+1e-4*t*dec {
					break
				}
			}
			t /= 2
			if t < 1e-12 {
				return theta, it, nil // no further gain representable
			}
		}
		copy(theta, cand)
		for _, v := range theta {
			if math.Abs(v) > 1e5 {
				return nil, it, errors.New("stats: the rating fit diverges")
			}
		}
		f = m.eval(theta, grad, hess)
	}
	return nil, 200, errors.New("stats: the rating fit did not converge in 200 Newton steps")
}

// FitRatingsFallback is FitRatings, but when the fitted drawElo has no finite estimate (the
// likelihood keeps rising along drawElo, as with clean sweeps and no losses anywhere) it refits with
// drawElo fixed at the value of the overall draw rate (virtual draws included), P(draw | Δ = 0) =
// tanh(k·drawElo/2), and says so in the second result.
func FitRatingsFallback(matches []Match, opt RatingOptions) (*RatingFit, bool, error) {
	fit, err := FitRatings(matches, opt)
	if err == nil || opt.FixDrawElo {
		return fit, false, err
	}
	var draws, games float64
	for _, m := range matches {
		draws += float64(m.Draws)
		games += float64(m.Wins + m.Draws + m.Losses)
	}
	virtual := opt.VirtualDraws
	if virtual == 0 {
		virtual = DefaultVirtualDraws
	}
	if virtual > 0 {
		draws += virtual
		games += virtual
	}
	rate := math.Min(math.Max(draws/math.Max(games, 1), 0.01), 0.9)
	opt.FixDrawElo, opt.DrawElo = true, 2*math.Atanh(rate)/kElo
	fit2, err2 := FitRatings(matches, opt)
	if err2 != nil {
		return nil, false, err // the first error says more
	}
	return fit2, true, nil
}
