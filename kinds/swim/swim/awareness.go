package swim

// Lifeguard local health ("awareness"): a score in [0, max−1] that rises
// when this node's own probes fail without the nacks that would show the
// network is fine, or when it has to refute an accusation, and falls with
// every successful probe. Probe interval and probe timeout are multiplied
// by score+1, so an overloaded or badly connected node slows down and gives
// its peers more time instead of accusing them.

// applyHealthDelta moves the health score by delta, clamped to
// [0, maxMult−1].
func applyHealthDelta(score, delta, maxMult int) int {
	score += delta
	if score > maxMult-1 {
		score = maxMult - 1
	}
	if score < 0 {
		score = 0
	}
	return score
}

// scaleByHealth returns d × (score+1), saturating.
func scaleByHealth(d int64, score int) int64 {
	return satMul(d, int64(score)+1)
}

// retransmitLimit is how many times a Bounded broadcast is piggybacked
// before it retires: retransmitMult × ceil(log10(n+1)) for n members.
func retransmitLimit(retransmitMult, n int) int {
	return retransmitMult * int(ceilLog10(uint64(max(0, n))+1))
}

// adjustHealth moves this node's local health by delta, unless local
// health awareness is off (plain SWIM: the score stays 0).
func (n *Node) adjustHealth(delta int) {
	if n.cfg.NoAwareness {
		return
	}
	n.health = applyHealthDelta(n.health, delta, n.cfg.AwarenessMaxMultiplier)
}
