package sgemm

import (
	"fmt"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Register tile and cache blocks of the packed path. The micro-kernel computes an mr×nr tile of C
// from a packed A panel (mr rows, k-major) and a packed B panel (nr columns, k-major). kc bounds the
// depth of one pass so that a B panel (kc·nr·4 bytes, ≤ 24 KiB) stays in L1 while the A panels of
// one mc block (≤ mc·kc·4 = 144 KiB) stay in L2; nc bounds the packed B block.
const (
	mr    = 6
	nr    = 16
	maxKC = 384
	mc    = 96
	nc    = 2048
)

// buffers holds one goroutine's packed blocks.
type buffers struct {
	a    []float32 // mc × kc, panels of mr rows
	b    []float32 // kc × nc, panels of nr columns
	tile tile
}

// tile is room for one edge tile of either kernel (6×16, or 6×32 on the AVX-512 path).
type tile [mr * 2 * nr]float32

var bufPool = sync.Pool{New: func() any { return new(buffers) }}

// packA and packB return the buffers with room for an mc×kc block of A and a kc×nb block of B
// (panels rounded up), grown on first use: GemmRows needs neither, GemmPackedB only A.
func (b *buffers) packA(kc int) []float32 {
	if n := (mc + mr - 1) / mr * mr * kc; len(b.a) < n {
		b.a = make([]float32, n)
	}
	return b.a
}

func (b *buffers) packB(kc, nb int) []float32 {
	if n := kc * ((nb + nr - 1) / nr * nr); len(b.b) < n {
		b.b = make([]float32, n)
	}
	return b.b
}

// gemmPacked adds op(A)·op(B) into C (k > 0, m, n > 0, arguments checked). Row i of the stored B
// starts at b[boff[i]], or at b[i*ldb] when boff is nil.
func gemmPacked(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, boff []int, c []float32, ldc int) {
	buf := bufPool.Get().(*buffers)
	defer bufPool.Put(buf)
	// Split k into passes of equal depth (at most maxKC) rather than maxKC plus a thin remainder.
	passes := (k + maxKC - 1) / maxKC
	kc := (k + passes - 1) / passes
	for jc := 0; jc < n; jc += nc {
		nb := min(nc, n-jc)
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			pbuf := buf.packB(kc, nb)
			packB(tB, b, ldb, boff, pc, kb, jc, nb, pbuf)
			for ic := 0; ic < m; ic += mc {
				mb := min(mc, m-ic)
				abuf := buf.packA(kc)
				packA(tA, a, lda, ic, mb, pc, kb, abuf)
				macro(mb, nb, kb, abuf, pbuf, &buf.tile, c[ic*ldc+jc:], ldc)
			}
		}
	}
}

// macro runs the micro-kernels over an mb×nb block of C (c points at its top-left element) from
// the packed blocks pa (panels of mr rows) and pb (panels of nr columns), depth kb. On the AVX-512
// path two panels of B go to one 6×32 kernel while more than one panel's columns remain. Full tiles
// are accumulated in place; edge tiles go through t.
func macro(mb, nb, kb int, pa, pb []float32, t *tile, c []float32, ldc int) {
	w := wide()
	for jr := 0; jr < nb; {
		tw := nr // the tile's width
		if w && nb-jr > nr {
			tw = 2 * nr
		}
		nn := min(tw, nb-jr)
		bp := &pb[jr*kb]
		for ir := 0; ir < mb; ir += mr {
			mm := min(mr, mb-ir)
			ap := &pa[ir*kb]
			full := mm == mr && nn == tw
			dst, ld := &c[ir*ldc+jr], ldc
			if !full {
				clear(t[:mr*tw])
				dst, ld = &t[0], tw
			}
			if tw == nr {
				kernel6x16(kb, ap, bp, dst, ld)
			} else {
				wide6x32(kb, ap, bp, &pb[(jr+nr)*kb], dst, ld)
			}
			if !full {
				t.addTo(mm, nn, tw, c[ir*ldc+jr:], ldc)
			}
		}
		jr += tw
	}
}

// addTo adds the top-left mm×nn of the tile (row stride tw) into C.
func (t *tile) addTo(mm, nn, tw int, c []float32, ldc int) {
	for i := 0; i < mm; i++ {
		row := c[i*ldc : i*ldc+nn]
		for j, v := range t[i*tw : i*tw+nn] {
			row[j] += v
		}
	}
}

// packA writes rows [i0, i0+mb) and depths [p0, p0+kb) of op(A) into dst as panels of mr rows:
// panel q holds dst[q*mr*kb + p*mr + i] = op(A)[i0+q*mr+i][p0+p], rows past mb zero.
func packA(tA bool, a []float32, lda, i0, mb, p0, kb int, dst []float32) {
	for q := 0; q*mr < mb; q++ {
		rows := min(mr, mb-q*mr)
		panel := dst[q*mr*kb : (q+1)*mr*kb]
		r0 := i0 + q*mr
		if tA { // op(A)[i][p] = a[p*lda+i]: each depth is a contiguous run of rows
			for p := 0; p < kb; p++ {
				src := a[(p0+p)*lda+r0 : (p0+p)*lda+r0+rows]
				d := panel[p*mr : p*mr+mr]
				copy(d, src)
				clear(d[rows:])
			}
			continue
		}
		for i := 0; i < rows; i++ { // op(A)[i][p] = a[i*lda+p]
			src := a[(r0+i)*lda+p0 : (r0+i)*lda+p0+kb]
			for p, v := range src {
				panel[p*mr+i] = v
			}
		}
		for i := rows; i < mr; i++ {
			for p := 0; p < kb; p++ {
				panel[p*mr+i] = 0
			}
		}
	}
}

// packB writes depths [p0, p0+kb) and columns [j0, j0+nb) of op(B) into dst as panels of nr
// columns: panel q holds dst[q*nr*kb + p*nr + j] = op(B)[p0+p][j0+q*nr+j], columns past nb zero.
// Row i of the stored B starts at b[boff[i]], or at b[i*ldb] when boff is nil.
func packB(tB bool, b []float32, ldb int, boff []int, p0, kb, j0, nb int, dst []float32) {
	row := func(i int) int {
		if boff != nil {
			return boff[i]
		}
		return i * ldb
	}
	for q := 0; q*nr < nb; q++ {
		cols := min(nr, nb-q*nr)
		panel := dst[q*nr*kb : (q+1)*nr*kb]
		c0 := j0 + q*nr
		if !tB { // op(B)[p][j] = b[p*ldb+j]: each depth is a contiguous run of columns
			for p := 0; p < kb; p++ {
				r := row(p0 + p)
				src := b[r+c0 : r+c0+cols]
				d := panel[p*nr : p*nr+nr]
				copy(d, src)
				clear(d[cols:])
			}
			continue
		}
		// op(B)[p][j] = b[row(j)+p]: a transpose. Reading the nr rows side by side and writing one
		// panel row of nr floats at a time keeps the writes contiguous (missing columns read zeros).
		var src [nr][]float32
		for j := 0; j < nr; j++ {
			if j < cols {
				r := row(c0 + j)
				src[j] = b[r+p0 : r+p0+kb]
			} else {
				src[j] = zeros(kb)
			}
		}
		transposeInto(panel, &src, kb)
	}
}

// transposeInto writes panel[p*nr + j] = src[j][p] for p < kb (every src[j] has kb elements).
func transposeInto(panel []float32, src *[nr][]float32, kb int) {
	s0, s1, s2, s3 := src[0][:kb], src[1][:kb], src[2][:kb], src[3][:kb]
	s4, s5, s6, s7 := src[4][:kb], src[5][:kb], src[6][:kb], src[7][:kb]
	s8, s9, s10, s11 := src[8][:kb], src[9][:kb], src[10][:kb], src[11][:kb]
	s12, s13, s14, s15 := src[12][:kb], src[13][:kb], src[14][:kb], src[15][:kb]
	for p := range s0 {
		d := (*[nr]float32)(panel[p*nr : p*nr+nr])
		d[0], d[1], d[2], d[3] = s0[p], s1[p], s2[p], s3[p]
		d[4], d[5], d[6], d[7] = s4[p], s5[p], s6[p], s7[p]
		d[8], d[9], d[10], d[11] = s8[p], s9[p], s10[p], s11[p]
		d[12], d[13], d[14], d[15] = s12[p], s13[p], s14[p], s15[p]
	}
}

// zeroRow is a shared run of zeros for missing panel columns (never written).
var zeroRow = make([]float32, 4096)

// zeros returns n zeros (a fresh slice beyond len(zeroRow)).
func zeros(n int) []float32 {
	if n <= len(zeroRow) {
		return zeroRow[:n]
	}
	return make([]float32, n)
}

// PackedB is a k×n matrix op(B) packed once for many products (a fully connected layer's weights):
// the micro-kernel's panels of nr columns for every pass over k.
type PackedB struct {
	k, n, kc int
	b        []float32 // row-major k×n copy, for the fallback path
	panels   []float32 // pass at depth pc: panels[pc*np:], np = n rounded up to nr
}

// PackB packs op(B) (k×n; B is n×k when tB) for GemmPackedB.
func PackB(tB bool, k, n int, b []float32, ldb int) *PackedB {
	if k < 0 || n < 0 {
		panic(fmt.Sprintf("sgemm: negative size k=%d n=%d", k, n))
	}
	if tB {
		need("b", b, n, k, ldb)
	} else {
		need("b", b, k, n, ldb)
	}
	p := &PackedB{k: k, n: n, b: rowMajor(tB, k, n, b, ldb)}
	if k == 0 || n == 0 {
		return p
	}
	passes := (k + maxKC - 1) / maxKC
	p.kc = (k + passes - 1) / passes
	np := (n + nr - 1) / nr * nr
	p.panels = make([]float32, k*np)
	for pc := 0; pc < k; pc += p.kc {
		kb := min(p.kc, k-pc)
		packB(false, p.b, max(1, n), nil, pc, kb, 0, n, p.panels[pc*np:])
	}
	return p
}

// K and Cols are the packed matrix's shape.
func (p *PackedB) K() int    { return p.k }
func (p *PackedB) Cols() int { return p.n }

// GemmPackedB computes columns [j0, j1) of C = op(A)·B + beta·C for op(A) m×k (A k×m when tA) and
// a packed k×n B; c is the whole C (column 0 at c[0]). j0 must be a multiple of 16 (callers split
// the columns between threads in whole panels).
func GemmPackedB(tA bool, m int, a []float32, lda int, b *PackedB, j0, j1 int, beta float32, c []float32, ldc int) {
	k, n := b.k, b.n
	if j0 < 0 || j1 > n || j0 > j1 || j0%nr != 0 {
		panic(fmt.Sprintf("sgemm: GemmPackedB columns [%d, %d) of %d (start a multiple of %d)", j0, j1, n, nr))
	}
	checkAC(tA, m, n, k, a, lda, c, ldc)
	w := j1 - j0
	if m == 0 || w == 0 {
		return
	}
	if !simd() {
		ta := blas.NoTrans
		if tA {
			ta = blas.Trans
		}
		blas32.Implementation().Sgemm(ta, blas.NoTrans, m, w, k, 1, a, lda, b.b[j0:], max(1, n), beta, c[j0:], ldc)
		return
	}
	cc := c[j0:]
	scale(m, w, beta, cc, ldc)
	if k == 0 {
		return
	}
	buf := bufPool.Get().(*buffers)
	defer bufPool.Put(buf)
	np := (n + nr - 1) / nr * nr
	for pc := 0; pc < k; pc += b.kc {
		kb := min(b.kc, k-pc)
		pb := b.panels[pc*np+j0*kb:]
		for ic := 0; ic < m; ic += mc {
			mb := min(mc, m-ic)
			abuf := buf.packA(b.kc)
			packA(tA, a, lda, ic, mb, pc, kb, abuf)
			macro(mb, w, kb, abuf, pb, &buf.tile, cc[ic*ldc:], ldc)
		}
	}
}
