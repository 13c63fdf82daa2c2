// Package vtime writes virtual time, int64 nanoseconds (DESIGN §3), as
// text. Every place that shows a virtual time to a reader uses one of its
// formats, so a time reads the same in a verdict reason, a shrink log and
// the CLI summary, and negative values and the int64 extremes are right
// everywhere:
//
//	Seconds   63.412518204s  5s      -1.5s            verdict reasons, manifests
//	Fixed     63.412518204s  5.000000000s  -1.500000000s  the CLI summary
//	Compact   5s  250ms  1500ns                       shrink's change log
//
// Split is the sign-and-magnitude step under all of them, for a
// presentation of its own (the stepper groups digits: +63.412 518 204s).
// Nothing here rounds: every format is exact or says it truncates.
package vtime

import "strconv"

// second is a second of virtual time in nanoseconds.
const second = 1_000_000_000

// Split returns the sign of ns and its magnitude as whole seconds and the
// nanoseconds past them. It is exact for every int64, math.MinInt64
// included (whose magnitude no int64 holds).
func Split(ns int64) (neg bool, sec, frac uint64) {
	u := uint64(ns)
	if ns < 0 {
		neg, u = true, -u
	}
	return neg, u / second, u % second
}

// Seconds writes ns as exact seconds without trailing zeros: 63.412518204s,
// 0.5s, 5s, -1.5s, 0s.
func Seconds(ns int64) string {
	b := appendFixed(make([]byte, 0, 24), ns)
	for b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	return string(append(b, 's'))
}

// Fixed writes ns as seconds with all nine decimals: 63.412518204s,
// 420.000000000s, -1.500000000s.
func Fixed(ns int64) string {
	return string(append(appendFixed(make([]byte, 0, 24), ns), 's'))
}

// Compact writes ns in the largest of s, ms and ns that holds it exactly:
// 5s, 250ms, 1500ns, -2s, 0s.
func Compact(ns int64) string {
	switch {
	case ns%second == 0:
		return strconv.FormatInt(ns/second, 10) + "s"
	case ns%1_000_000 == 0:
		return strconv.FormatInt(ns/1_000_000, 10) + "ms"
	}
	return strconv.FormatInt(ns, 10) + "ns"
}

// appendFixed appends ns as signed seconds with nine decimals and no unit.
func appendFixed(b []byte, ns int64) []byte {
	neg, sec, frac := Split(ns)
	if neg {
		b = append(b, '-')
	}
	b = strconv.AppendUint(b, sec, 10)
	return append(append(b, '.'), strconv.FormatUint(frac+second, 10)[1:]...)
}
