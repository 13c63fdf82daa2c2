package swim

import "slices"

// suspicion is the Lifeguard suspicion timer for one suspect member. It
// starts at max and shrinks toward min as independent members confirm the
// suspicion, so a member many peers find unreachable is declared dead
// sooner, while a single (possibly unhealthy) accuser has to wait longest.
type suspicion struct {
	// start is when the member became suspect; deadlines count from it.
	start    int64
	deadline int64
	min, max int64
	// k is how many confirmations drive the timeout to min; n is how many
	// arrived so far.
	k, n int
	// accusers holds the original accuser and every confirmer, so no peer
	// is counted twice.
	accusers []string
	// gen identifies the timer armed for deadline; timers with an older
	// generation are stale.
	gen uint32
}

func (s *suspicion) clone() *suspicion {
	c := *s
	c.accusers = slices.Clone(s.accusers)
	return &c
}

// suspicionMinNs is the minimum suspicion timeout for a cluster of n
// members: suspicionMult × max(1, log10(max(1, n))) × probeInterval, with
// the node scale truncated to thousandths as memberlist's suspicionTimeout
// does. It saturates instead of overflowing.
func suspicionMinNs(suspicionMult, n int, probeIntervalNs int64) int64 {
	scale := max(int64(1000), log10Fixed(uint64(max(1, n)), 3))
	return mulDiv(satMul(int64(suspicionMult), scale), probeIntervalNs, 1000)
}

// suspicionK is how many independent confirmations drive a suspicion to its
// minimum timeout in a cluster of n members: suspicionMult − 2, or 0 when
// the cluster has too few other members (n − 2) to provide that many. The
// "− 2" aims to reach the nominal timeout two probe intervals early, since
// confirmations arrive with no known phase relation to the suspicion.
func suspicionK(suspicionMult, n int) int {
	k := suspicionMult - 2
	if n-2 < k || k < 0 {
		return 0
	}
	return k
}

// suspicionTimeoutNs is the total suspicion timeout (from the start of the
// suspicion) after n of k confirmations:
//
//	max − (log(n+1) / log(k+1)) × (max − min), floored to whole
//	milliseconds and never below min
//
// which is memberlist's formula; the log ratio is computed with six
// fractional decimal digits of integer log10. With k < 1 the timeout is min
// from the start (no confirmations are expected).
func suspicionTimeoutNs(n, k int, min, max int64) int64 {
	if k < 1 {
		return min
	}
	if n <= 0 {
		return max
	}
	num := log10Fixed(uint64(n)+1, 6)
	den := log10Fixed(uint64(k)+1, 6)
	shrink := mulDiv(max-min, num, den)
	t := max - shrink
	t -= t % 1_000_000
	if t < min {
		return min
	}
	return t
}

// remainingSuspicionNs is how long is left of a suspicion with n of k
// confirmations after elapsed nanoseconds; it is negative once overdue.
func remainingSuspicionNs(n, k int, elapsed, min, max int64) int64 {
	return suspicionTimeoutNs(n, k, min, max) - elapsed
}

// hasAccuser reports whether id already accused or confirmed.
func (s *suspicion) hasAccuser(id string) bool {
	return slices.Contains(s.accusers, id)
}
