// Package natsort orders host ids the way people count: node1, node2,
// node10, not node1, node10, node2. Runs of digits compare by value, the
// rest byte by byte; ties (node01 vs node1) fall back to plain order, so
// the order is total and deterministic.
package natsort

import "slices"

// Compare returns -1, 0 or +1 as a sorts before, equal to or after b.
func Compare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na, nb := trimZeros(a[si:i]), trimZeros(b[sj:j])
			if len(na) != len(nb) {
				return sign(len(na) - len(nb))
			}
			if na != nb {
				if na < nb {
					return -1
				}
				return 1
			}
			continue
		}
		if ca != cb {
			return sign(int(ca) - int(cb))
		}
		i++
		j++
	}
	switch {
	case len(a)-i < len(b)-j:
		return -1
	case len(a)-i > len(b)-j:
		return 1
	}
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// Sorted returns a sorted copy of ids.
func Sorted(ids []string) []string {
	out := slices.Clone(ids)
	slices.SortFunc(out, Compare)
	return out
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func trimZeros(s string) string {
	for len(s) > 1 && s[0] == '0' {
		s = s[1:]
	}
	return s
}

func sign(d int) int {
	switch {
	case d < 0:
		return -1
	case d > 0:
		return 1
	}
	return 0
}
