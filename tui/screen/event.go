package screen

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonw"
	"github.com/detsim/detsim/internal/term"
)

// Event is one events.ndjson record taken apart for display.
type Event struct {
	At     int64
	Host   string // "" for host_id null
	Tag    string
	Type   string
	fields []kv // the event's members after type, in order
}

// ParseEvent reads an envelope line
// {"virtual_time_ns":T,"host_id":H,"kind_tag":K,"event":{"type":…,…}}
// with bundle.ParseEventLine and takes its event apart for display.
func ParseEvent(b []byte) (Event, error) {
	rec, err := bundle.ParseEventLine(bytes.TrimSuffix(b, []byte{'\n'}))
	if err != nil {
		return Event{}, err
	}
	// A record's strings are not detsim's to print as they are: every
	// one the panes show passes term.Escape (here, and tokenString for
	// the values).
	ev := Event{At: rec.VirtualTimeNs, Host: term.Escape(rec.HostID), Tag: term.Escape(rec.KindTag), Type: term.Escape(rec.Type)}
	dec := json.NewDecoder(bytes.NewReader(rec.Event))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // the event's '{', as ParseEventLine checked
		return ev, err
	}
	var fields []kv
	if err := walkEvent(dec, &fields); err != nil {
		return ev, err
	}
	typed := false
	for _, f := range fields {
		if f.k == "type" && !typed {
			typed = true
			continue
		}
		ev.fields = append(ev.fields, f)
	}
	return ev, nil
}

// walkEvent reads an event's members without flattening nested values.
func walkEvent(dec *json.Decoder, out *[]kv) error {
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		k = term.Escape(k)
		t, err = dec.Token()
		if err != nil {
			return err
		}
		v, err := tokenString(dec, t)
		if err != nil {
			return err
		}
		*out = append(*out, kv{k, v})
	}
	_, err := dec.Token()
	return err
}

// shown is the event's members as the stepper shows them (escaped,
// integers grouped), each a string member of one JSON object: what a
// kind's Gist reads.
func (ev *Event) shown() hosts.Payload {
	b := []byte{'{'}
	for i, f := range ev.fields {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(jsonw.AppendKey(b, f.k), f.v)
	}
	return append(b, '}')
}

// Field is the value of the event's member k, "" when it has none.
func (ev *Event) Field(k string) string {
	for _, f := range ev.fields {
		if f.k == k {
			return f.v
		}
	}
	return ""
}

// summary is the one-line gist of the event after its type: as its
// kind's Mark for the type says (hosts.Mark.Gist: SWIM's state transition
// reads the way the design sketch shows it), else its members as k=v in
// record order.
func (ev *Event) summary(kinds *hosts.Registry) string {
	if kinds != nil {
		if k, ok := kinds.Lookup(ev.Tag); ok {
			if m, ok := hosts.MarkOf(k, ev.Type); ok && m.Gist != nil {
				return m.Gist(ev.Host, ev.shown())
			}
		}
	}
	var b strings.Builder
	for i, f := range ev.fields {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f.k)
		b.WriteByte('=')
		b.WriteString(f.v)
	}
	return b.String()
}
