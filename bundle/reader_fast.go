package bundle

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/detsim/detsim/internal/jsonscan"
)

// The fast path reads the one line shape AppendEventLine writes, members
// in its order and no whitespace:
//
//	{"virtual_time_ns":N,"host_id":"a"|null,"kind_tag":"t","event":{"type":"x",...}}
//
// without reflection. It accepts a line only when it is certain
// encoding/json would decode it to the same record without error; any
// other line, well-formed or not, goes to parseEventLineSlow, which
// decides. So the fast path changes how long a read takes, never what it
// returns: FuzzFastVsSlow holds it to that. It reads the members by the
// keys the writer writes (lineTimeKey … in eventline.go).

// parseEnvelope reads the envelope of a line of AppendEventLine's shape
// up to its event object: the record without Type or Event, and the index
// where the event object starts. strs may be nil.
func parseEnvelope(b []byte, strs *jsonscan.Strings) (rec EventRecord, evStart int, ok bool) {
	i, ok := jsonscan.Match(b, 0, lineTimeKey)
	if !ok {
		return rec, 0, false
	}
	t, i, ok := jsonscan.Uint(b, i)
	if !ok || t > math.MaxInt64 {
		return rec, 0, false
	}
	if i, ok = jsonscan.Match(b, i, lineHostKey); !ok {
		return rec, 0, false
	}
	var host []byte
	if next, null := jsonscan.Match(b, i, "null"); null {
		i = next
	} else if host, i, ok = jsonscan.String(b, i); !ok || len(host) == 0 {
		return rec, 0, false
	}
	if i, ok = jsonscan.Match(b, i, lineKindKey); !ok {
		return rec, 0, false
	}
	kind, i, ok := jsonscan.String(b, i)
	if !ok || len(kind) == 0 {
		return rec, 0, false
	}
	if i, ok = jsonscan.Match(b, i, lineEventKey); !ok {
		return rec, 0, false
	}
	rec.VirtualTimeNs = int64(t)
	if host != nil {
		rec.HostID = strs.Get(host)
	}
	rec.KindTag = strs.Get(kind)
	return rec, i, true
}

// parseEventLineFast parses a line of AppendEventLine's shape. It returns
// the record without its Event, and where the event object lies in b,
// so the caller decides where the copy goes. strs may be nil.
func parseEventLineFast(b []byte, strs *jsonscan.Strings) (rec EventRecord, evStart, evEnd int, ok bool) {
	rec, i, ok := parseEnvelope(b, strs)
	if !ok {
		return rec, 0, 0, false
	}
	return parseEvent(b, i, rec, strs)
}

// parseEvent checks the event object at b[i] whole and that the line ends
// right after it, and completes rec with its type.
func parseEvent(b []byte, i int, rec EventRecord, strs *jsonscan.Strings) (EventRecord, int, int, bool) {
	typ, end, ok := eventType(b, i)
	// The envelope closes right after the event, and the line ends there.
	if !ok || len(typ) == 0 || end != len(b)-1 || b[end] != '}' {
		return rec, 0, 0, false
	}
	rec.Type = strs.Get(typ)
	return rec, i, end, true
}

// parseHead reads only the envelope and the event's type of a line of
// AppendEventLine's shape, where "type" is the event's first member, and
// returns where the event object starts. It checks nothing after the type
// but that the line closes the event and the envelope: a reader that will
// not look at the payload pays for no more. (A hand-made line with a
// second "type" member reads as the first here and as the last in
// encoding/json; detsim never writes one.)
func parseHead(b []byte, strs *jsonscan.Strings) (rec EventRecord, evStart int, ok bool) {
	rec, i, ok := parseEnvelope(b, strs)
	if !ok {
		return rec, 0, false
	}
	j, ok := jsonscan.Match(b, i, `{"type":`)
	if !ok {
		return rec, 0, false
	}
	typ, _, ok := jsonscan.String(b, j)
	if !ok || len(typ) == 0 || !bytes.HasSuffix(b, []byte("}}")) {
		return rec, 0, false
	}
	rec.Type = strs.Get(typ)
	return rec, i, true
}

// eventType reads the event object at b[i], checking all of it, and
// returns its "type" string and the index just past it. A second "type",
// or a key encoding/json would fold onto "type" ("Type", "TYPE"), makes
// the line one for the slow path.
func eventType(b []byte, i int) (typ []byte, end int, ok bool) {
	o := jsonscan.NewObject(b, i)
	seen := false
	for o.Next() {
		k := o.Key()
		switch {
		case string(k) == "type" && !seen:
			var null bool
			if typ, null = o.Text(); null {
				o.Fail()
			}
			seen = true
		case jsonscan.FoldsTo(k, "type"):
			o.Fail()
		default:
			o.Skip()
		}
	}
	end, ok = o.End()
	return typ, end, ok && seen
}

// slabSize is the block event payloads are copied into. A payload above
// an eighth of it gets its own allocation, so a slab wastes little.
const slabSize = 32 << 10

// slab copies event payloads into shared blocks, one allocation per
// block instead of one per record. Each copy is capped at its length, so
// appending to one never writes over the next, and a block is never
// written again once handed out: every payload stays the fresh slice
// EventRecord promises. A payload kept alive keeps its block alive.
type slab struct{ buf []byte }

func (s *slab) copy(ev []byte) json.RawMessage {
	if len(ev) > slabSize/8 {
		return bytes.Clone(ev)
	}
	if cap(s.buf)-len(s.buf) < len(ev) {
		s.buf = make([]byte, 0, slabSize)
	}
	n := len(s.buf)
	s.buf = append(s.buf, ev...)
	return s.buf[n:len(s.buf):len(s.buf)]
}

// lineReader parses the lines of one ReadEvents call, sharing strings and
// payload storage between records.
type lineReader struct {
	strs jsonscan.Strings
	evs  slab
}

func (r *lineReader) parse(b []byte) (EventRecord, error) {
	rec, start, end, ok := parseEventLineFast(b, &r.strs)
	if !ok {
		return parseEventLineSlow(b)
	}
	rec.Event = r.evs.copy(b[start:end])
	return rec, nil
}

// scan is parse for ScanEvents: it reads as much of b as reads asks
// for its type, and says what that was. A payload it returns aliases b.
func (r *lineReader) scan(b []byte, reads func(kindTag, typ string) Read) (EventRecord, Read, error) {
	head, evStart, ok := parseHead(b, &r.strs)
	if !ok {
		rec, err := r.checked(b)
		return rec, Whole, err
	}
	switch reads(head.KindTag, head.Type) {
	case Skip:
		return head, Skip, nil
	case Unchecked:
		// parseHead saw the line end with the event's and the envelope's
		// closing braces.
		head.Event = b[evStart : len(b)-1 : len(b)-1]
		head.Unchecked = true
		return head, Unchecked, nil
	}
	rec, start, end, ok := parseEvent(b, evStart, head, &r.strs)
	if !ok {
		rec, err := parseEventLineSlow(b)
		return rec, Whole, err
	}
	rec.Event = b[start:end:end]
	return rec, Whole, nil
}

// checked is b checked whole, its payload aliasing b.
func (r *lineReader) checked(b []byte) (EventRecord, error) {
	rec, start, end, ok := parseEventLineFast(b, &r.strs)
	if !ok {
		return parseEventLineSlow(b)
	}
	rec.Event = b[start:end:end]
	return rec, nil
}
