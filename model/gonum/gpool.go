package gonum

// Global pooling bias (model.Config.GlobalPool; KataGo's): y[d][i,·] += Σ_j w[d][j]·g[i][j], with
// g[i] = [mean over the 121 cells of x[c][i,·] for c < cx, then their max] ([n][2cx]). x and y are
// CS layouts ([channels][n*121], sample i's cells at i*121 … i*121+120); w is [cy][2cx].

// gpoolFeatures writes g [n][2cx] from x [cx][n*121] and, when arg is not nil, the cell of each
// maximum: arg[i*cx+c] is the index in x of sample i's largest cell of channel c (the first of equals).
func gpoolFeatures(x []float32, cx, n int, g []float32, arg []int32) {
	s := n * cells
	parallel(n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			gi := g[i*2*cx : (i+1)*2*cx]
			for c := 0; c < cx; c++ {
				off := c*s + i*cells
				row := x[off : off+cells]
				var sum float32
				mx, at := row[0], 0
				for k, v := range row {
					sum += v
					if v > mx {
						mx, at = v, k
					}
				}
				gi[c] = sum * (1.0 / cells)
				gi[cx+c] = mx
				if arg != nil {
					arg[i*cx+c] = int32(off + at)
				}
			}
		}
	})
}

// gpoolAdd adds the pooled bias of g [n][2cx] through w [cy][2cx] to every cell of y [cy][n*121];
// bias [n][cy] is scratch (overwritten with g·wᵀ).
func gpoolAdd(g []float32, cx, n int, w []float32, cy int, bias, y []float32) {
	gemm(false, true, n, cy, 2*cx, g, 2*cx, w, 2*cx, 0, bias, cy)
	s := n * cells
	parallel(cy, func(_, lo, hi int) {
		for d := lo; d < hi; d++ {
			for i := 0; i < n; i++ {
				b := bias[i*cy+d]
				row := y[d*s+i*cells : d*s+(i+1)*cells]
				for k := range row {
					row[k] += b
				}
			}
		}
	})
}

// gpoolGrad is the backward pass of gpoolAdd for dy [cy][n*121]: dbias [n][cy] = Σ over cells of dy,
// gw [cy][2cx] = dbiasᵀ·g and dg [n][2cx] = dbias·w (all overwritten). dy is only read.
func gpoolGrad(dy []float32, cy, n int, g []float32, cx int, w []float32, dbias, gw, dg []float32) {
	s := n * cells
	parallel(n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			for d := 0; d < cy; d++ {
				var sum float32
				for _, v := range dy[d*s+i*cells : d*s+(i+1)*cells] {
					sum += v
				}
				dbias[i*cy+d] = sum
			}
		}
	})
	gemm(true, false, cy, 2*cx, n, dbias, cy, g, 2*cx, 0, gw, 2*cx)
	gemm(false, false, n, 2*cx, cy, dbias, cy, w, 2*cx, 0, dg, 2*cx)
}

// gpoolScatter adds the gradient dg [n][2cx] of the pooled features to dx [cx][n*121]: the mean's
// share to every cell, the max's to the cell arg recorded.
func gpoolScatter(dg []float32, cx, n int, arg []int32, dx []float32) {
	s := n * cells
	parallel(cx, func(_, lo, hi int) {
		for c := lo; c < hi; c++ {
			for i := 0; i < n; i++ {
				m := dg[i*2*cx+c] * (1.0 / cells)
				row := dx[c*s+i*cells : c*s+(i+1)*cells]
				for k := range row {
					row[k] += m
				}
				dx[arg[i*cx+c]] += dg[i*2*cx+cx+c]
			}
		}
	})
}
