package env

import "math/bits"

// bits128 is a set of grid cells (bit c for cell c, c < 128).
type bits128 struct{ lo, hi uint64 }

func (b bits128) set(c int) bits128 {
	if c < 64 {
		b.lo |= 1 << uint(c)
	} else {
		b.hi |= 1 << uint(c-64)
	}
	return b
}

func (b bits128) clear(c int) bits128 {
	if c < 64 {
		b.lo &^= 1 << uint(c)
	} else {
		b.hi &^= 1 << uint(c-64)
	}
	return b
}

func (b bits128) has(c int) bool {
	if c < 64 {
		return b.lo>>uint(c)&1 != 0
	}
	return b.hi>>uint(c-64)&1 != 0
}

func (b bits128) and(o bits128) bits128 { return bits128{b.lo & o.lo, b.hi & o.hi} }
func (b bits128) or(o bits128) bits128  { return bits128{b.lo | o.lo, b.hi | o.hi} }
func (b bits128) isZero() bool          { return b.lo|b.hi == 0 }
func (b bits128) count() int            { return bits.OnesCount64(b.lo) + bits.OnesCount64(b.hi) }

// shr shifts right by n (0 < n < 64).
func (b bits128) shr(n uint) bits128 {
	return bits128{b.lo>>n | b.hi<<(64-n), b.hi >> n}
}

// hasFive reports whether the set holds five cells in a row along any axis. Cell strides are 1 (along a
// column), 11 (along a row) and 12 (the diagonal); no five-chain of valid cells wraps between columns.
func (b bits128) hasFive() bool {
	for _, s := range [3]uint{1, GridSize, GridSize + 1} {
		x := b.and(b.shr(s))
		x = x.and(x.shr(2 * s))
		x = x.and(b.shr(4 * s))
		if !x.isZero() {
			return true
		}
	}
	return false
}
