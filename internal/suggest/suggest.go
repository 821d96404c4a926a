// Package suggest finds what a user probably meant: the nearest of a set of names by edit distance,
// for "did you mean" hints on config keys and command-line flags.
package suggest

// Closest returns the candidate nearest to s by edit distance, if it is near enough to be a typo
// (at most max(2, len(s)/4) edits), else "".
func Closest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := EditDistance(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= max(2, len(s)/4) {
		return best
	}
	return ""
}

// EditDistance is the Levenshtein distance of a and b (bytes).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
