package verdict

import (
	"fmt"
	"math"

	"github.com/detsim/detsim/scenarios"
)

// paramReader reads one assertion's parameters as the TOML decoder left
// them (int64, string, []any of strings), reporting the first problem.
type paramReader struct {
	a   scenarios.Assertion
	err error
}

func (r *paramReader) fail(key, format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("verdict: assertion %q (%s): parameter %q: %s", r.a.Name, r.a.Kind, key, fmt.Sprintf(format, args...))
	}
}

// nonNegative reads an integer parameter that must be ≥ 0.
func (r *paramReader) nonNegative(key string) int64 {
	v, ok := r.a.Params[key]
	if !ok {
		r.fail(key, "missing")
		return 0
	}
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case int:
		n = int64(x)
	default:
		r.fail(key, "want an integer, got %T", v)
		return 0
	}
	if n < 0 {
		r.fail(key, "must not be negative, got %d", n)
	}
	return n
}

// str reads a non-empty string parameter.
func (r *paramReader) str(key string) string {
	v, ok := r.a.Params[key]
	if !ok {
		r.fail(key, "missing")
		return ""
	}
	s, ok := v.(string)
	if !ok {
		r.fail(key, "want a string, got %T", v)
		return ""
	}
	if s == "" {
		r.fail(key, "must not be empty")
	}
	return s
}

// ids reads a non-empty list of peer ids, keeping the first of repeats.
func (r *paramReader) ids(key string) []string {
	v, ok := r.a.Params[key]
	if !ok {
		r.fail(key, "missing")
		return nil
	}
	var list []string
	switch x := v.(type) {
	case []string:
		list = x
	case []any:
		for i, e := range x {
			s, ok := e.(string)
			if !ok || s == "" {
				r.fail(key, "element %d is not a peer id", i)
				return nil
			}
			list = append(list, s)
		}
	default:
		r.fail(key, "want an array of peer ids, got %T", v)
		return nil
	}
	if len(list) == 0 {
		r.fail(key, "must name at least one peer")
	}
	var out []string
	for _, s := range list {
		seen := false
		for _, o := range out {
			seen = seen || o == s
		}
		if !seen {
			out = append(out, s)
		}
	}
	return out
}

// window reads window_start_ns and window_end_ns, start ≤ end.
func (r *paramReader) window() (start, end int64) {
	start, end = r.nonNegative("window_start_ns"), r.nonNegative("window_end_ns")
	if r.err == nil && end < start {
		r.fail("window_end_ns", "%d is before window_start_ns %d", end, start)
	}
	return start, end
}

// deadline reads after_ns and within_ns; their sum must fit in int64.
func (r *paramReader) deadline() (after, within int64) {
	after, within = r.nonNegative("after_ns"), r.nonNegative("within_ns")
	if r.err == nil && within > math.MaxInt64-after {
		r.fail("within_ns", "after_ns + within_ns overflows int64")
	}
	return after, within
}

// peerSet is an assertion's named peers: their world indices in the
// order the scenario listed them, and each index's position in that
// order (-1 when not named). It never changes after New, so clones share
// it.
type peerSet struct {
	order []int32
	pos   []int32 // by world index; shorter than the world when later ids are unnamed
}

func newPeerSet(w *world, names []string) peerSet {
	s := peerSet{}
	for _, n := range names {
		s.order = append(s.order, w.intern(n))
	}
	s.pos = make([]int32, len(w.names))
	for i := range s.pos {
		s.pos[i] = -1
	}
	for p, i := range s.order {
		s.pos[i] = int32(p)
	}
	return s
}

func (s peerSet) has(i int32) bool { return int(i) < len(s.pos) && s.pos[i] >= 0 }
