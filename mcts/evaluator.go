// Package mcts is batched Monte Carlo tree search for YINSH: PUCT and Gumbel AlphaZero search over a
// flat-array tree, the Evaluator interface that supplies priors and values, and the evaluator wrappers
// (batching across concurrent searches, mixing in rollout values).
//
// Conventions used throughout the package:
//   - Values are from the view of the player to act in the state they belong to: +1 a win, -1 a loss.
//     A turn is several actions by one player, so the sign of a value flips between a node and its
//     child only when the player to act changes, never per ply.
//   - WDL is [3]float32{win, draw, loss}; the scalar value is win - loss.
//   - Priors are per legal action, in the order of env.State.LegalActions (increasing action id):
//     Priors[j] belongs to Legal[j]. Illegal actions have no entry, which masks them. Dense and
//     GatherPolicy convert to and from the flat 2,142-action space ([env.NumActions]).
//   - The tree is flat arrays indexed by integer node ids (rootIndex = 0, unvisited = -1), mctx style.
//   - All randomness comes from a *rand.Rand passed in; a search is bounded by a simulation count, so a
//     fixed seed and a deterministic evaluator give identical results.
package mcts

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/yinsh-zero/yinsh/env"
)

// Request is one position to evaluate.
type Request struct {
	// State is the position (read-only, never terminal).
	State *env.State
	// Legal holds State's legal actions as State.LegalActions returns them (read-only).
	Legal []env.Action
}

// Evaluation is an evaluator's answer for one Request.
type Evaluation struct {
	// Priors[j] is the prior probability of Legal[j]. The caller provides the slice with
	// len(Priors) == len(Legal); the evaluator writes every entry (the search renormalises).
	Priors []float32
	// WDL is the win, draw and loss probability for the player to act in State.
	WDL [3]float32
}

// Value returns the scalar value win - loss.
func (e *Evaluation) Value() float32 { return e.WDL[0] - e.WDL[2] }

// Evaluator evaluates a batch of positions: out[i] answers reqs[i] (len(out) == len(reqs)). The search
// calls it with one or more leaves at a time. Implementations say whether they may be called
// concurrently; Batcher may, and Batcher calls its inner evaluator from one goroutine per
// worker.
type Evaluator interface {
	Evaluate(reqs []Request, out []Evaluation) error
}

// EvaluatorFunc adapts a function to the Evaluator interface.
type EvaluatorFunc func(reqs []Request, out []Evaluation) error

// Evaluate calls f.
func (f EvaluatorFunc) Evaluate(reqs []Request, out []Evaluation) error { return f(reqs, out) }

// Uniform is the evaluator without knowledge: uniform priors and value 0 (WDL 0.5, 0, 0.5). It is safe
// for concurrent use.
type Uniform struct{}

// Evaluate implements Evaluator.
func (Uniform) Evaluate(reqs []Request, out []Evaluation) error {
	for i := range reqs {
		fillUniform(out[i].Priors)
		out[i].WDL = [3]float32{0.5, 0, 0.5}
	}
	return nil
}

func fillUniform(p []float32) {
	if len(p) == 0 {
		return
	}
	u := 1 / float32(len(p))
	for j := range p {
		p[j] = u
	}
}

// normalize scales p to sum to 1; if its sum is not a positive finite number (or an entry is negative
// or NaN) it becomes uniform. It reports whether p was usable as given.
func normalize(p []float32) bool {
	var sum float32
	for _, x := range p {
		if !(x >= 0) {
			fillUniform(p)
			return false
		}
		sum += x
	}
	if !(sum > 0) || math.IsInf(float64(sum), 0) {
		fillUniform(p)
		return false
	}
	inv := 1 / sum
	for j := range p {
		p[j] *= inv
	}
	return true
}

// Dense writes the per-legal-action priors into dst over the flat action space (len(dst) >=
// env.NumActions): dst[legal[j]] = priors[j], zero elsewhere.
func Dense(legal []env.Action, priors []float32, dst []float32) {
	clear(dst[:env.NumActions])
	for j, a := range legal {
		dst[a] = priors[j]
	}
}

// GatherPolicy turns one row of a network's policy output over the flat action space into priors over
// the legal actions: dense[a] are probabilities, or logits when logits is true (a softmax over the legal
// entries is taken); the result is normalised. It is the masking step of a network adapter.
func GatherPolicy(dense []float32, legal []env.Action, logits bool, priors []float32) {
	priors = priors[:len(legal)]
	if !logits {
		for j, a := range legal {
			priors[j] = dense[a]
		}
		normalize(priors)
		return
	}
	maxL := float32(math.Inf(-1))
	for _, a := range legal {
		if l := dense[a]; l > maxL {
			maxL = l
		}
	}
	if math.IsInf(float64(maxL), 0) || math.IsNaN(float64(maxL)) {
		fillUniform(priors)
		return
	}
	for j, a := range legal {
		priors[j] = float32(math.Exp(float64(dense[a] - maxL)))
	}
	normalize(priors)
}

// Net is batched network inference with the shapes of model.Net.Predict, so that a network plugs in
// as a method value (NetEvaluator{Net: net.Predict, PolicyLogits: true, WDLLogits: true}): for n
// positions, planes holds n observations (n*env.ObservationSize float32, the layout of
// env.State.Observation) and masks n legal masks (n*env.NumActions, true = legal); Net writes policy
// (n*env.NumActions: probabilities, or logits) and wdl (n*3: win, draw, loss for the side to act, as
// probabilities or logits). The buffers belong to the caller.
type Net func(n int, planes []float32, masks []bool, policy, wdl []float32) error

// NetEvaluator adapts a Net to the Evaluator interface: it writes the observation planes and legal
// masks of a batch, calls the network once, and gathers the legal priors (a softmax over the legal
// logits, or renormalised probabilities) and the WDL. It is safe for concurrent use if Net is (each
// call takes its own buffers from a pool). Put it behind a Batcher so that each call carries a batch.
type NetEvaluator struct {
	Net          Net
	PolicyLogits bool // the policy output is logits (else probabilities)
	WDLLogits    bool // the wdl output is logits (else probabilities)

	pool sync.Pool // *netBuffers
}

type netBuffers struct {
	planes []float32
	masks  []bool
	policy []float32
	wdl    []float32
}

// Evaluate implements Evaluator.
func (e *NetEvaluator) Evaluate(reqs []Request, out []Evaluation) error {
	n := len(reqs)
	if n == 0 {
		return nil
	}
	b, _ := e.pool.Get().(*netBuffers)
	if b == nil {
		b = &netBuffers{}
	}
	defer e.pool.Put(b)
	b.planes = grow(b.planes, n*env.ObservationSize)
	b.masks = grow(b.masks, n*env.NumActions)
	b.policy = grow(b.policy, n*env.NumActions)
	b.wdl = grow(b.wdl, n*3)
	for i, r := range reqs {
		r.State.Observation(b.planes[i*env.ObservationSize : (i+1)*env.ObservationSize])
		m := b.masks[i*env.NumActions : (i+1)*env.NumActions]
		clear(m)
		for _, a := range r.Legal {
			m[a] = true
		}
	}
	if err := e.Net(n, b.planes, b.masks, b.policy, b.wdl); err != nil {
		return fmt.Errorf("mcts: network: %w", err)
	}
	for i, r := range reqs {
		GatherPolicy(b.policy[i*env.NumActions:(i+1)*env.NumActions], r.Legal, e.PolicyLogits, out[i].Priors)
		raw := [3]float32{b.wdl[3*i], b.wdl[3*i+1], b.wdl[3*i+2]}
		w := raw
		if e.WDLLogits {
			m := max(w[0], w[1], w[2])
			for k := range w {
				w[k] = float32(math.Exp(float64(w[k] - m)))
			}
		}
		if !normalize(w[:]) {
			return fmt.Errorf("mcts: network: wdl of batch entry %d is %v, want probabilities (or logits with WDLLogits)", i, raw)
		}
		out[i].WDL = w
	}
	return nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// ErrClosed is returned by a Batcher used after Close.
var ErrClosed = errors.New("mcts: evaluator closed")
