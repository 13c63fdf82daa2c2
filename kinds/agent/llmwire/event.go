package llmwire

import (
	"strconv"

	"github.com/detsim/detsim/internal/jsonw"
)

// Event is a diagnostics record of the three kinds: a type and ordered
// fields, so its JSON has a fixed member order (docs/events.md).
type Event struct {
	Typ    string
	Fields []Field
}

// Field is one member of an Event: a string, an integer, a boolean or a
// list of strings, by which constructor made it.
type Field struct {
	Key  string
	kind uint8
	s    string
	i    int64
	ss   []string
}

// S is a string field.
func S(k, v string) Field { return Field{Key: k, kind: 1, s: v} }

// I is an integer field.
func I(k string, v int64) Field { return Field{Key: k, kind: 2, i: v} }

// B is a boolean field.
func B(k string, v bool) Field {
	f := Field{Key: k, kind: 3}
	if v {
		f.i = 1
	}
	return f
}

// L is a list-of-strings field.
func L(k string, v []string) Field { return Field{Key: k, kind: 4, ss: v} }

// Type is the event's type.
func (e *Event) Type() string { return e.Typ }

// AppendJSON writes {"type":..., fields in order}.
func (e *Event) AppendJSON(b []byte) []byte {
	b = append(b, `{"type":`...)
	b = jsonw.AppendString(b, e.Typ)
	for _, f := range e.Fields {
		b = append(b, ',')
		b = jsonw.AppendString(b, f.Key)
		b = append(b, ':')
		switch f.kind {
		case 1:
			b = jsonw.AppendString(b, f.s)
		case 2:
			b = strconv.AppendInt(b, f.i, 10)
		case 3:
			b = strconv.AppendBool(b, f.i == 1)
		case 4:
			b = append(b, '[')
			for j, s := range f.ss {
				if j > 0 {
					b = append(b, ',')
				}
				b = jsonw.AppendString(b, s)
			}
			b = append(b, ']')
		}
	}
	return append(b, '}')
}

// Ev builds an event.
func Ev(typ string, fields ...Field) *Event { return &Event{Typ: typ, Fields: fields} }
