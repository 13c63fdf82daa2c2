// Package suggest finds the name a user probably meant: the "did you
// mean" of every place detsim refuses a name it does not know (a
// subcommand, a scenario, a host, an event field, an operator).
package suggest

// Closest returns the candidate nearest to s within maxDist edits (see
// Distance), the first of equals; "" if none is that near.
func Closest(s string, candidates []string, maxDist int) string {
	best, bestDist := "", maxDist+1
	for _, c := range candidates {
		if d := Distance(s, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Near is Closest with the distance scaled to the name: one edit for
// names of up to four bytes, two beyond. A three-letter host id two
// edits from another is a different host, not a typo.
func Near(s string, candidates []string) string {
	d := 2
	if len(s) <= 4 {
		d = 1
	}
	return Closest(s, candidates, d)
}

// Distance is the optimal-string-alignment distance between a and b:
// the fewest single-byte insertions, deletions, substitutions and swaps
// of two neighbours that turn a into b ("swep" → "sweep" is 1, "sewep"
// → "sweep" is 1).
func Distance(a, b string) int {
	// d[i][j] is the distance between a[:i] and b[:j].
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
