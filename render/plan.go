package render

import (
	"bytes"
	"errors"
	"math/bits"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/internal/natsort"
)

// Level-of-detail limits (docs/render.md). Every count they cut is
// written into the page, which says what it drew and what it did not.
const (
	// tiles splits the drawn window into equal time tiles; each tile keeps
	// at most the caps below of individual items.
	tiles          = 256
	tileArrows     = 2500 // arrows per tile (drops first, then evenly spaced)
	tileHighMarks  = 600  // timeouts, drops, incarnation bumps, suspicions…
	tileLowMarks   = 400  // probe sends and acks, dials, cache warm-ups
	densityBuckets = 1024 // per-lane message counts for the zoomed-out view
	// smallMesh: up to this many hosts every observer × subject pair gets a
	// membership row; above it only pairs whose view ever changed do.
	smallMesh = 16
	// textAllBytes: an events.ndjson up to this size is inlined whole;
	// above it the texts of drawn records are inlined up to textBudget.
	textAllBytes = 24 << 20
	textBudget   = 12 << 20
)

// pagePlan is what every run shares: the lanes.
type pagePlan struct {
	hosts []string // union of every run's hosts, sorted
	lane  []map[int32]int32
}

func plan(runs []*run, opts Options) *pagePlan {
	var all []string
	for _, r := range runs {
		all = append(all, r.hosts...)
	}
	slices.SortFunc(all, natsort.Compare)
	all = slices.Compact(all)
	p := &pagePlan{hosts: all}
	for _, r := range runs {
		m := make(map[int32]int32, len(r.hosts))
		for i, h := range r.hosts {
			j, _ := slices.BinarySearchFunc(all, h, natsort.Compare)
			m[int32(i)] = int32(j)
		}
		p.lane = append(p.lane, m)
	}
	return p
}

func (r *run) tileOf(t int64) int { return int(r.scale(t, tiles)) }

// scale maps t in the window onto [0, n): floor((t-from)·n / span) in
// exact integer arithmetic (no overflow for any time), clamped.
func (r *run) scale(t int64, n uint64) uint64 {
	span := uint64(r.to-r.from) + 1
	if t <= r.from {
		return 0
	}
	x := uint64(t - r.from)
	if x >= span {
		return n - 1
	}
	hi, lo := bits.Mul64(x, n)
	q, _ := bits.Div64(hi, lo, span)
	return q
}

// The level of detail keeps, per tile, up to tileArrows messages: when
// a tile has more, every one not delivered (up to the cap) and the rest
// evenly spaced among the delivered ones, or evenly spaced among the
// undelivered ones alone if they fill the cap; and up to tileHighMarks
// high and tileLowMarks low marks, evenly spaced. "Evenly spaced" keeps
// items j·m/n (j < n) of the m in line order.
//
// The first pass counts each tile's items by class; the second keeps an
// item on sight from its rank in its class (onGrid), so nothing is held
// that the page does not draw. A message's class depends on its fate
// (delivered or not), known only at its receive or drop, so the first
// pass notes each message's fate in two bits (fates), the one record of
// the run's length load holds; marks' classes are known on sight.

// onGrid says whether spread of m items to n keeps the one of rank p:
// all when m ≤ n; else the picks j·m/n rise by at least 1 with j, so p
// is picked iff the first j with j·m ≥ p·n lands on it.
func onGrid(p, m, n int) bool {
	if m <= n {
		return true
	}
	p64, m64, n64 := int64(p), int64(m), int64(n)
	j := (p64*n64 + m64 - 1) / m64
	return j < n64 && j*m64/n64 == p64
}

// selection is the second pass's running rank of each tile's items by class.
type selection struct {
	first, rest [tiles]int // messages not delivered (first choice), delivered
	high, low   [tiles]int
}

// arrow says whether the next message of tile k (not delivered: first)
// is drawn as an arrow.
func (s *selection) arrow(c *counts, k int, first bool) bool {
	n, a := c.msgs[k], c.undelivered[k]
	var rank *int
	if first {
		rank = &s.first[k]
	} else {
		rank = &s.rest[k]
	}
	p := *rank
	*rank++
	switch {
	case n <= tileArrows:
		return true
	case a >= tileArrows:
		return first && onGrid(p, a, tileArrows)
	case first:
		return true
	}
	return onGrid(p, n-a, tileArrows-a)
}

// mark says whether the next high (or low) mark of tile k is drawn.
func (s *selection) mark(c *counts, k int, high bool) bool {
	if high {
		p := s.high[k]
		s.high[k]++
		return onGrid(p, c.high[k], tileHighMarks)
	}
	p := s.low[k]
	s.low[k]++
	return onGrid(p, c.low[k], tileLowMarks)
}

// fates holds each message's fate, two bits a message, in the order the
// messages appear (their sends, or their receives when no send pairs).
type fates []uint64

const (
	fateNotDrawn    = 0 // sent before the window and not received inside it
	fateDelivered   = 1
	fateUndelivered = 2 // dropped, in flight at the end, or a receive only
)

func fateOf(status int8) uint8 {
	if status == delivered {
		return fateDelivered
	}
	return fateUndelivered
}

func (f *fates) set(i int, v uint8) {
	w := i / 32
	for len(*f) <= w {
		*f = append(*f, 0)
	}
	(*f)[w] |= uint64(v) << (2 * (i % 32))
}

func (f fates) get(i int) uint8 {
	if w := i / 32; w < len(f) {
		return uint8(f[w]>>(2*(i%32))) & 3
	}
	return fateNotDrawn
}

// texts chooses the record texts the page inlines (docs/render.md,
// "Level of detail" 4): every line of an events.ndjson up to
// textAllBytes; else, in line order, the high lines (evidence,
// mutations, membership rows, high marks) while they fit textBudget,
// then the low ones (drawn arrows' and low marks' records), each tile an
// equal share of what is left, so the texts do not all come from the
// start of the run. The second pass offers it every line (offer); the
// low lines' share is known only once every high line is in, so a third
// pass reads them (lows).
type texts struct {
	all      bool
	evidence map[int]bool
	used     int
	lines    []int    // the texts kept so far, in line order:
	texts    []string // high ones (or all), then lows' in a second run
	low      []int    // low lines, for the third pass
}

func (r *run) newTexts() *texts {
	ts := &texts{evidence: map[int]bool{}}
	// The records' size, not the file's: a folded line (docs/bundle.md,
	// "Folded lines") is inlined as the lines it stands for. The file is
	// never larger, so only a small one is measured again.
	if n, err := bundle.ContentSize(r.dir, bundle.EventsFile); err == nil && n <= textAllBytes {
		if n, err = bundle.RecordBytes(r.dir); err == nil && n <= textAllBytes {
			ts.all = true
		}
	}
	for _, v := range r.verdicts {
		for _, e := range v.Evidence {
			if l, ok := evidenceLine(e.Ref); ok {
				ts.evidence[l] = true
			}
		}
	}
	return ts
}

// offer is line b, which the page draws as a high item, a low one, or
// neither.
func (ts *texts) offer(line int, b []byte, high, low bool) {
	switch {
	case ts.all:
	case high || ts.evidence[line]:
		if ts.used+len(b) > textBudget {
			return
		}
		ts.used += len(b)
	case low:
		ts.low = append(ts.low, line)
		return
	default:
		return
	}
	ts.lines = append(ts.lines, line)
	ts.texts = append(ts.texts, string(b))
}

// finish reads the low lines' texts, each tile up to its share, and
// leaves every kept text on r in line order.
func (ts *texts) finish(r *run) error {
	if len(ts.low) > 0 {
		share := (textBudget - ts.used) / tiles
		var spent [tiles]int
		var lines []int
		var txts []string
		j := 0
		err := r.eachLine(func(line int, b []byte) error {
			if j == len(ts.low) {
				return errDone
			}
			if ts.low[j] != line {
				return nil
			}
			j++
			t, _ := lineTime(b)
			k := r.tileOf(t)
			if spent[k]+len(b) <= share {
				spent[k] += len(b)
				lines, txts = append(lines, line), append(txts, string(b))
			}
			return nil
		})
		if err != nil && err != errDone {
			return err
		}
		ts.merge(lines, txts)
	}
	r.want, r.texts = ts.lines, ts.texts
	if r.want == nil {
		r.want = []int{}
	}
	r.textsElided = r.records - int64(len(r.texts))
	return nil
}

// merge adds lines (sorted, none already kept) to ts's, in line order.
func (ts *texts) merge(lines []int, txts []string) {
	outL := make([]int, 0, len(ts.lines)+len(lines))
	outT := make([]string, 0, cap(outL))
	i, j := 0, 0
	for i < len(ts.lines) || j < len(lines) {
		if j == len(lines) || i < len(ts.lines) && ts.lines[i] < lines[j] {
			outL, outT = append(outL, ts.lines[i]), append(outT, ts.texts[i])
			i++
		} else {
			outL, outT = append(outL, lines[j]), append(outT, txts[j])
			j++
		}
	}
	ts.lines, ts.texts = outL, outT
}

var errDone = errors.New("done")

// eachLine calls fn with every line of events.ndjson (without its
// newline) and its 1-based number (bundle.EachLine); b is valid until fn
// returns.
func (r *run) eachLine(fn func(line int, b []byte) error) error {
	var fnErr error
	err := bundle.EachLine(r.dir, func(line int, b []byte) error {
		fnErr = fn(line, b)
		return fnErr
	})
	var le *bundle.LineError
	switch {
	case err == nil || err == fnErr:
		return err
	case errors.As(err, &le):
		return &BundleError{Path: filepath.Join(r.dir, bundle.EventsFile) + ":" + strconv.Itoa(le.Line), Err: le.Err}
	}
	return &BundleError{Path: filepath.Join(r.dir, bundle.EventsFile), Err: err}
}

func evidenceLine(ref string) (int, bool) {
	s, ok := strings.CutPrefix(ref, bundle.EventsFile+"#L")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n > 0
}

// lineTime reads a line's virtual_time_ns without decoding it.
func lineTime(b []byte) (int64, bool) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"virtual_time_ns":`))
	if !ok {
		return 0, false
	}
	end := bytes.IndexByte(rest, ',')
	if end < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(rest[:end]), 10, 64)
	return n, err == nil
}
