package rng

//go:generate go run gen_normal.go

// normalScaleShift is the fixed-point scale of normalTable (16.16).
const normalScaleShift = 16

// MaxNormalStddev bounds the stddev Normal accepts, so the product of a
// table entry (|v| < 2^18) and the stddev fits in an int64 with room to spare.
const MaxNormalStddev = 1 << 40

// Normal returns one sample of a zero-mean normal distribution with the
// given standard deviation, in the same integer unit, from a single draw
// into the checked-in quantile table. Floats never enter (spec §7.4).
// stddev must be in [0, MaxNormalStddev]; a zero stddev still consumes a
// draw so a policy edit never shifts later draws on the same stream.
func (s *Stream) Normal(stddev int64) int64 {
	if stddev <= 0 {
		s.Skip()
		return 0
	}
	v := int64(normalTable[s.Uint64()%uint64(len(normalTable))])
	if stddev > MaxNormalStddev {
		panic("rng: Normal stddev above MaxNormalStddev")
	}
	return v * stddev / (1 << normalScaleShift) // truncates toward zero: symmetric
}
