package env

// Perft counts the leaf states reached after exactly depth actions (terminal states before that depth
// count as no leaves). It works on a copy and allocates one action buffer per level.
func Perft(s *State, depth int) uint64 {
	bufs := make([][]Action, depth+1)
	for i := range bufs {
		bufs[i] = make([]Action, 0, 256)
	}
	return perft(*s, depth, bufs)
}

func perft(s State, depth int, bufs [][]Action) uint64 {
	if depth == 0 {
		return 1
	}
	legal := s.LegalActions(bufs[depth])
	bufs[depth] = legal
	if depth == 1 {
		return uint64(len(legal))
	}
	var n uint64
	for _, a := range legal {
		c := s
		c.apply(a)
		n += perft(c, depth-1, bufs)
	}
	return n
}

// PerftDivide returns the perft count below each legal action of s, in legal-action order.
func PerftDivide(s *State, depth int) ([]Action, []uint64) {
	legal := s.LegalActions(nil)
	counts := make([]uint64, len(legal))
	for i, a := range legal {
		c := *s
		c.apply(a)
		if depth > 1 {
			counts[i] = Perft(&c, depth-1)
		} else {
			counts[i] = 1
		}
	}
	return legal, counts
}
