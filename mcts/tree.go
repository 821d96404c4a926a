package mcts

import (
	"math"
	"unsafe"

	"github.com/yinsh-zero/yinsh/env"
)

// The tree is two flat arenas, mctx style: nodes indexed by node id (rootIndex = 0) and edges. A node
// owns the contiguous edges [edges, edges+numEdges), one per legal action, created when the node is
// expanded; an edge's child is unvisited until the search first goes through it, when the child node is
// appended. So a node costs 32 bytes plus 8 bytes per legal action, and nothing is allocated per node
// (the arenas grow by append and are reused across searches).
const (
	rootIndex = 0
	unvisited = -1
)

const (
	flagExpanded = 1 << iota // edges exist (the node has been evaluated)
	flagTerminal             // the state is terminal; raw holds its exact value
)

// node is the statistics of one state. Values are from the view of toAct, the player to act there.
type node struct {
	valueSum float32 // sum of the values backed up through the node
	drawSum  float32 // sum of the draw probabilities backed up
	raw      float32 // the evaluator's value at expansion, or the exact value of a terminal state
	parent   int32   // -1 for the root
	edges    int32   // first edge (when expanded)
	visits   int32   // completed simulations through the node
	inflight uint16  // simulations in flight through the node (virtual loss)
	numEdges uint16
	toAct    env.Color
	flags    uint8
}

// edge is one legal action of an expanded node.
type edge struct {
	child  int32 // node id, or unvisited
	action uint16
	prior  prior16
}

const (
	nodeBytes = int(unsafe.Sizeof(node{}))
	edgeBytes = int(unsafe.Sizeof(edge{}))
)

// prior16 stores a probability in [0, 2) in 16 bits, as lc0 does: the float32 bits less 3<<28, keeping
// 5 exponent and 11 mantissa bits (relative error below 2^-12; values under 2^-31 become 0).
type prior16 uint16

func encodePrior(p float32) prior16 {
	b := math.Float32bits(p)
	if b < 3<<28 {
		return 0
	}
	b = (b - 3<<28 + 1<<11) >> 12 // round to nearest
	if b > 0xffff {
		b = 0xffff
	}
	return prior16(b)
}

func (p prior16) float() float32 {
	if p == 0 {
		return 0
	}
	return math.Float32frombits(uint32(p)<<12 + 3<<28)
}

// arena holds the nodes and edges of one tree.
type arena struct {
	nodes []node
	edges []edge
}

func (a *arena) reset() {
	a.nodes = a.nodes[:0]
	a.edges = a.edges[:0]
}

// newNode appends a node for state s reached from parent and returns its id. A terminal state gets its
// exact value and needs no evaluation.
func (a *arena) newNode(parent int32, s *env.State) int32 {
	n := node{parent: parent, toAct: s.CurrentPlayer()}
	if s.IsTerminal() {
		n.flags = flagTerminal
		n.raw, _ = terminalValue(s)
	}
	a.nodes = append(a.nodes, n)
	return int32(len(a.nodes) - 1)
}

// terminalValue returns the exact value and draw probability of a finished game for the player to act.
func terminalValue(s *env.State) (v, draw float32) {
	switch s.Outcome() {
	case env.WhiteWins:
		v = 1
	case env.BlackWins:
		v = -1
	case env.Draw:
		return 0, 1
	}
	if s.CurrentPlayer() == env.Black {
		v = -v
	}
	return v, 0
}

// expand gives node id its edges from the legal actions and their (normalised) priors, and its raw
// value.
func (a *arena) expand(id int32, legal []env.Action, priors []float32, value float32) {
	normalize(priors)
	start := len(a.edges)
	for j, act := range legal {
		a.edges = append(a.edges, edge{child: unvisited, action: uint16(act), prior: encodePrior(priors[j])})
	}
	n := &a.nodes[id]
	n.edges = int32(start)
	n.numEdges = uint16(len(legal))
	n.raw = value
	n.flags |= flagExpanded
}

// backup adds value v and draw probability d (both from the view of the player to act at leaf) to every
// node from leaf up to the root, and takes back the virtual loss of the simulation.
func (a *arena) backup(leaf int32, v, d float32) {
	who := a.nodes[leaf].toAct
	for id := leaf; id >= 0; {
		n := &a.nodes[id]
		n.visits++
		n.inflight--
		if n.toAct == who {
			n.valueSum += v
		} else {
			n.valueSum -= v
		}
		n.drawSum += d
		id = n.parent
	}
}

// addInflight adds delta to the in-flight count of id and its ancestors.
func (a *arena) addInflight(id int32, delta int) {
	for id >= 0 {
		n := &a.nodes[id]
		n.inflight = uint16(int(n.inflight) + delta)
		id = n.parent
	}
}

// q returns the mean value of node id from the view of player who (0 without visits).
func (a *arena) q(id int32, who env.Color) float32 {
	n := &a.nodes[id]
	if n.visits == 0 {
		return 0
	}
	v := n.valueSum / float32(n.visits)
	if n.toAct != who {
		v = -v
	}
	return v
}

// childOf returns the child of node id through action act, or unvisited (also when id has no such edge).
func (a *arena) childOf(id int32, act env.Action) (child int32, ok bool) {
	n := &a.nodes[id]
	if n.flags&flagExpanded == 0 {
		return unvisited, false
	}
	for _, e := range a.edges[n.edges : n.edges+int32(n.numEdges)] {
		if env.Action(e.action) == act {
			return e.child, true
		}
	}
	return unvisited, false
}

// compactInto copies the subtree rooted at id into dst (emptied first), which becomes a tree whose root
// is id's copy. It is a breadth-first copying collection: dst.nodes is its own queue.
func (a *arena) compactInto(id int32, dst *arena) {
	dst.reset()
	dst.nodes = append(dst.nodes, a.nodes[id])
	dst.nodes[0].parent = -1
	for i := 0; i < len(dst.nodes); i++ {
		n := dst.nodes[i]
		if n.flags&flagExpanded == 0 {
			continue
		}
		start := len(dst.edges)
		for _, e := range a.edges[n.edges : n.edges+int32(n.numEdges)] {
			if e.child != unvisited {
				c := a.nodes[e.child]
				c.parent = int32(i)
				dst.nodes = append(dst.nodes, c)
				e.child = int32(len(dst.nodes) - 1)
			}
			dst.edges = append(dst.edges, e)
		}
		dst.nodes[i].edges = int32(start)
	}
}

// bytes returns the memory the tree's nodes and edges occupy (not counting spare capacity).
func (a *arena) bytes() int { return len(a.nodes)*nodeBytes + len(a.edges)*edgeBytes }
