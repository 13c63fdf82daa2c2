package schemadiff

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
	"path/filepath"
	"slices"

	"github.com/detsim/detsim/bundle"
)

// Field is what one bundle's records of one kind hold at one field path.
type Field struct {
	Types Types
	// First is the 1-based line where each type was first seen at this
	// path, indexed by the type's bit number.
	First [len(typeNames)]int64
}

// firstLine is the earliest line among the field's types.
func (f *Field) firstLine() int64 {
	var first int64
	for i, n := range f.First {
		if f.Types&(1<<i) != 0 && (first == 0 || n < first) {
			first = n
		}
	}
	return first
}

// Kind is one event kind of a bundle: a (kind_tag, event.type) pair and
// every field path its records hold, with the JSON types seen there.
// Paths are dotted from the record's root ("host_id", "event.peer");
// array elements add "[]" ("event.via[]").
type Kind struct {
	Tag, Type string
	Records   int64
	FirstLine int64
	Fields    map[string]*Field
}

// Name is "kind_tag/type".
func (k *Kind) Name() string { return k.Tag + "/" + k.Type }

// Schema is the schema of one bundle's event stream. Its size depends on
// the number of distinct kinds and fields, never on the number of
// records.
type Schema struct {
	Records int64
	Kinds   map[string]*Kind // by Name
	// shapes maps a record shape (its field paths and types, then its
	// kind) to its kind: a record whose shape was seen before adds
	// nothing new, so it is only counted.
	shapes map[string]*Kind
	w      walker
	key    []byte
}

func newSchema() *Schema {
	return &Schema{Kinds: map[string]*Kind{}, shapes: map[string]*Kind{}}
}

// ReadSchema reads the schema of dir's events.ndjson, streaming.
func ReadSchema(dir string) (*Schema, error) {
	path := filepath.Join(dir, bundle.EventsFile)
	f, err := bundle.OpenFile(dir, bundle.EventsFile)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := readSchema(f)
	var le *LineError
	if errors.As(err, &le) {
		le.File = path
	}
	return s, err
}

// readSchema reads the schema of an events.ndjson stream.
func readSchema(r io.Reader) (*Schema, error) {
	s := newSchema()
	// A folded line is the records it stands for, numbered as the run
	// numbered them (bundle.EachLine's expansion): a schema sees the
	// same records whichever format holds them.
	var u bundle.Unfolder
	add := func(line int, b []byte) error { return s.add(int64(line), b) }
	err := eachLine(r, func(_ int64, b []byte) error {
		err := u.Each(b, add)
		if le, ok := err.(*bundle.LineError); ok {
			return &LineError{Line: int64(le.Line), Err: le.Err}
		}
		return err
	})
	return s, err
}

// add reads line n.
func (s *Schema) add(n int64, b []byte) error {
	if err := s.w.line(b); err != nil {
		return &LineError{Line: n, Err: err}
	}
	s.Records++
	w := &s.w
	s.key = append(append(append(append(s.key[:0], w.shape...), 0xff), w.tag...), 0)
	s.key = append(s.key, w.typ...)
	if k, ok := s.shapes[string(s.key)]; ok {
		k.Records++
		return nil
	}
	name := string(w.tag) + "/" + string(w.typ)
	k := s.Kinds[name]
	if k == nil {
		if len(s.Kinds) >= maxKinds {
			return &LineError{Line: n, Err: fmt.Errorf("more than %d distinct event kinds", maxKinds)}
		}
		k = &Kind{Tag: string(w.tag), Type: string(w.typ), FirstLine: n, Fields: map[string]*Field{}}
		s.Kinds[name] = k
	}
	k.Records++
	for sh := w.shape; len(sh) > 0; {
		l := int(sh[0])<<8 | int(sh[1])
		path, t := sh[2:2+l], jsonType(sh[2+l])
		sh = sh[3+l:]
		f := k.Fields[string(path)]
		if f == nil {
			if len(k.Fields) >= maxFields {
				return &LineError{Line: n, Err: fmt.Errorf("kind %s has more than %d distinct fields", name, maxFields)}
			}
			f = &Field{}
			k.Fields[string(path)] = f
		}
		if f.Types&Types(t) == 0 {
			f.Types |= Types(t)
			f.First[bits.TrailingZeros8(uint8(t))] = n
		}
	}
	if len(s.shapes) < maxShapes && len(s.key) <= maxShapeKey {
		s.shapes[string(s.key)] = k
	}
	return nil
}

// kindNames returns the schema's kind names, sorted.
func (s *Schema) kindNames() []string {
	names := make([]string, 0, len(s.Kinds))
	for n := range s.Kinds {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
