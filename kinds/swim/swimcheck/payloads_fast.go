package swimcheck

import (
	"github.com/detsim/detsim/internal/jsonscan"
)

// Each payload type has a fast decoder of its own, alike in shape (a
// switch over its members): one decoder over every type would read
// through reflection or a table, which is the slow path this avoids.
//
// The fast path reads payloads as the simulator writes them (jsonw:
// compact, ASCII keys, no escapes in the values read) without reflection
// or allocation. It accepts a payload only when encoding/json would
// decode it into the wire shape without error and to the same values;
// anything else, well-formed or not, goes to encoding/json, which
// decides. So which path ran never shows in a verdict or an error:
// FuzzFastVsSlow holds the fast path to that.
//
// Two things encoding/json resolves its own way make a payload one for
// the slow path: a member that appears twice (the last wins there) and a
// key that matches a field only ignoring case ("Seq" sets Seq there).

// payloadReader reads one payload object's members for a fast decoder.
type payloadReader struct {
	jsonscan.Object
	raw  []byte
	tx   *jsonscan.Strings
	seen uint8 // bit i: fields[i] was read
}

func newPayloadReader(raw []byte, tx *jsonscan.Strings) payloadReader {
	return payloadReader{Object: jsonscan.NewObject(raw, 0), raw: raw, tx: tx}
}

// field returns the index in fields of the current member's key, or -1
// for a member the payload does not use (the caller skips it). A
// repeated field, or a key equal to one only ignoring case, marks the
// payload as one for the slow path.
func (r *payloadReader) field(fields ...string) int {
	k := r.Key()
	for i, f := range fields {
		if string(k) != f {
			continue
		}
		if r.seen&(1<<i) != 0 {
			r.Fail()
			return -1
		}
		r.seen |= 1 << i
		return i
	}
	if jsonscan.FoldsTo(k, fields...) {
		r.Fail()
	}
	return -1
}

// text reads a string member; null leaves the field empty, as it does in
// encoding/json.
func (r *payloadReader) text() string {
	s, null := r.Text()
	if null || s == nil {
		return ""
	}
	return r.tx.Get(s)
}

// texts reads a member holding an array of strings: null is a nil slice,
// [] an empty one and a null element an empty string, as in encoding/json.
func (r *payloadReader) texts() []string {
	var out []string
	null := r.Texts(func(s []byte, null bool) {
		if null {
			out = append(out, "")
			return
		}
		out = append(out, r.tx.Get(s))
	})
	if !null && out == nil {
		out = []string{}
	}
	return out
}

// done reports whether the whole payload was read: the object ended where
// the payload does and nothing in it was left to the slow path.
func (r *payloadReader) done() bool {
	end, ok := r.End()
	return ok && end == len(r.raw)
}

// exactTransition reads a state_transition payload in exactly the shape
// kinds/swim/swim writes it, member by member:
//
//	{"type":"state_transition","observer":S,"subject":S,"from":S,"to":S,"incarnation":N,"reason":S}
//
// with no escapes in the strings. Matching the fixed parts as literals
// is several times faster than walking the object, and a big run's log is
// mostly such lines; any other shape, null values included, is left to
// the member-by-member reader. Every value is still checked as
// encoding/json would check it.
func exactTransition(raw []byte, tx *jsonscan.Strings) (p transitionPayload, ok bool) {
	// observer, subject, from, to: each key, then a string.
	var vals [4][]byte
	i := 0
	for k, key := range [4]string{`{"type":"state_transition","observer":`, `,"subject":`, `,"from":`, `,"to":`} {
		if i, ok = jsonscan.Match(raw, i, key); !ok {
			return p, false
		}
		if vals[k], i, ok = jsonscan.String(raw, i); !ok {
			return p, false
		}
	}
	if i, ok = jsonscan.Match(raw, i, `,"incarnation":`); ok {
		p.Incarnation, i, ok = jsonscan.Uint(raw, i)
	}
	if ok {
		i, ok = jsonscan.Match(raw, i, `,"reason":`)
	}
	if ok {
		_, i, ok = jsonscan.String(raw, i)
	}
	if !ok || i+1 != len(raw) || raw[i] != '}' {
		return transitionPayload{}, false
	}
	p.Observer, p.Subject, p.To, p.hasIncarnation = tx.Get(vals[0]), tx.Get(vals[1]), tx.Get(vals[3]), true
	return p, true
}

// fastTransition also tracks "type", so that a payload with a second one
// goes to the slow path: post-run evaluation hands it payloads nothing
// else has checked (bundle.Unchecked), whose type was read from their
// first member.
func fastTransition(raw []byte, tx *jsonscan.Strings) (p transitionPayload, ok bool) {
	if p, ok := exactTransition(raw, tx); ok {
		return p, true
	}
	r := newPayloadReader(raw, tx)
	for r.Next() {
		switch r.field("observer", "subject", "to", "incarnation", "type") {
		case 0:
			p.Observer = r.text()
		case 1:
			p.Subject = r.text()
		case 2:
			p.To = r.text()
		case 3:
			var null bool
			p.Incarnation, null = r.Uint()
			p.hasIncarnation = !null
		default:
			r.Skip()
		}
	}
	return p, r.done()
}

// Alike in shape to every fast decoder here, on purpose (the file's comment
// says why).
func fastProbe(raw []byte, tx *jsonscan.Strings) (p probePayload, ok bool) {
	r := newPayloadReader(raw, tx)
	for r.Next() {
		switch r.field("target", "seq", "mode") {
		case 0:
			p.Target = r.text()
		case 1:
			var null bool
			p.Seq, null = r.Uint()
			p.hasSeq = !null
		case 2:
			p.Mode = r.text()
		default:
			r.Skip()
		}
	}
	return p, r.done()
}

func fastMessage(raw []byte, tx *jsonscan.Strings) (p messagePayload, ok bool) {
	r := newPayloadReader(raw, tx)
	for r.Next() {
		switch r.field("message", "bytes") {
		case 0:
			p.Message = r.text()
		case 1:
			var null bool
			p.Bytes, null = r.Int()
			p.hasBytes = !null
		default:
			r.Skip()
		}
	}
	return p, r.done()
}

func fastBump(raw []byte) (p bumpPayload, ok bool) {
	r := newPayloadReader(raw, nil)
	for r.Next() {
		switch r.field("new") {
		case 0:
			var null bool
			p.New, null = r.Uint()
			p.hasNew = !null
		default:
			r.Skip()
		}
	}
	return p, r.done()
}

// As every fast decoder here: its own payload's members.
func fastMutation(raw []byte, tx *jsonscan.Strings) (p mutationPayload, ok bool) {
	r := newPayloadReader(raw, tx)
	for r.Next() {
		switch r.field("kind", "peer", "peers_a", "peers_b", "preserve_state") {
		case 0:
			p.Kind = r.text()
		case 1:
			p.Peer = r.text()
		case 2:
			p.PeersA = r.texts()
		case 3:
			p.PeersB = r.texts()
		case 4:
			p.PreserveState, _ = r.Bool()
		default:
			r.Skip()
		}
	}
	return p, r.done()
}
