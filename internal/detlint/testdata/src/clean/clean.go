// Package clean holds the near misses of every detlint rule: code that
// looks like a violation and is deterministic. It must produce no report.
package clean

import (
	"cmp"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

// second is an untyped constant written as a float literal; it is an
// integer at run time.
const second = 1e9

// Durations in int64 ns, compared with pure time methods, never the clock.
func deadline(now int64, timeout time.Duration) (int64, bool) {
	a, b := time.Unix(0, now), time.Unix(0, now+int64(timeout))
	return now + 3*second + timeout.Nanoseconds(), b.After(a) // time.Time.After is a method
}

// Sorted iteration over a map, in each accepted spelling.
func sortedKeys(m map[string]int) int {
	total := 0
	for _, k := range slices.Sorted(maps.Keys(m)) {
		total += m[k] // a point lookup is fine
	}
	byLen := slices.SortedFunc(maps.Keys(m), func(a, b string) int { return cmp.Compare(len(a), len(b)) })
	vals := slices.Sorted((maps.Values(m)))
	for i := range len(byLen) {
		total += i + vals[i]
	}
	if v, ok := m["orch"]; ok {
		total += v
	}
	return total
}

// Integer-only math, and floats that exist only as text.
func ppm(loss int64) string {
	const fraction = "0.5 float64(x)" // a float in a string
	// float64(loss) * 1.5 in a comment is not code.
	return strings.Repeat(fraction, int(loss*1_000_000/1_000_000))
}

// Writing is not a read; ranging over slices, strings and ints is ordered.
func write(name string, data []byte, words []string) error {
	for i, w := range words {
		data = append(data, w[i%len(w)])
	}
	return os.WriteFile(name, data, 0o644)
}

// A type switch may name float types to reject floats with a clear error.
func reject(v any) string {
	switch v.(type) {
	case float32, float64, complex128:
		return "floating-point values are not allowed"
	}
	return ""
}
