package jsonscan

// Object reads the members of one JSON object in order, the way a
// decoder into a struct does: Next moves to a member and Key names it,
// then exactly one value method (Text, Uint, Int, Bool, Texts, Skip)
// reads its value. Once anything is not recognised the object is marked
// bad, every later call is a no-op, and End reports it.
type Object struct {
	b     []byte
	i     int
	key   []byte
	count int  // members started
	state byte // open, closed or bad
}

const (
	open byte = iota
	closed
	bad
)

// NewObject starts reading the object at b[i].
func NewObject(b []byte, i int) Object {
	o := Object{b: b, i: i + 1}
	if i >= len(b) || b[i] != '{' {
		o.state = bad
	}
	return o
}

// Next moves to the next member and reports whether there is one. It
// returns false at the closing brace and once the object is bad.
func (o *Object) Next() bool {
	if o.state != open {
		return false
	}
	b := o.b
	if o.i >= len(b) {
		o.state = bad
		return false
	}
	if o.count == 0 && b[o.i] == '}' {
		o.i++
		o.state = closed
		return false
	}
	if o.count > 0 {
		switch b[o.i] {
		case '}':
			o.i++
			o.state = closed
			return false
		case ',':
			o.i++
		default:
			o.state = bad
			return false
		}
	}
	key, next, ok := Key(b, o.i)
	if !ok {
		o.state = bad
		return false
	}
	o.key, o.i = key, next
	o.count++
	return true
}

// Key is the current member's name.
func (o *Object) Key() []byte { return o.key }

// Fail marks the object not recognised, for a member its reader cannot
// take (a duplicate, a key that only case-folds to a field).
func (o *Object) Fail() { o.state = bad }

// Text reads a string value that decodes to its own bytes, or null.
func (o *Object) Text() (s []byte, null bool) {
	if o.state != open {
		return nil, false
	}
	if next, ok := Match(o.b, o.i, "null"); ok {
		o.i = next
		return nil, true
	}
	s, next, ok := String(o.b, o.i)
	if !ok {
		o.state = bad
		return nil, false
	}
	o.i = next
	return s, false
}

// Uint reads a non-negative integer that fits in a uint64, or null.
func (o *Object) Uint() (v uint64, null bool) {
	if o.state != open {
		return 0, false
	}
	if next, ok := Match(o.b, o.i, "null"); ok {
		o.i = next
		return 0, true
	}
	v, next, ok := Uint(o.b, o.i)
	if !ok {
		o.state = bad
		return 0, false
	}
	o.i = next
	return v, false
}

// Int reads an integer that fits in an int64, or null.
//
// It is Uint again over int64, on purpose: one generic taking the number
// parser as a value would make every integer field of every record read
// through Object (bundle readers, the judges) an indirect call.
func (o *Object) Int() (v int64, null bool) {
	if o.state != open {
		return 0, false
	}
	if next, ok := Match(o.b, o.i, "null"); ok {
		o.i = next
		return 0, true
	}
	v, next, ok := Int(o.b, o.i)
	if !ok {
		o.state = bad
		return 0, false
	}
	o.i = next
	return v, false
}

// Bool reads true, false or null.
func (o *Object) Bool() (v, null bool) {
	if o.state != open {
		return false, false
	}
	for _, lit := range [...]struct {
		text    string
		v, null bool
	}{{"true", true, false}, {"false", false, false}, {"null", false, true}} {
		if next, ok := Match(o.b, o.i, lit.text); ok {
			o.i = next
			return lit.v, lit.null
		}
	}
	o.state = bad
	return false, false
}

// Texts reads an array whose elements are strings that decode to their
// own bytes or null, calling add with each in order, or a null array.
func (o *Object) Texts(add func(s []byte, null bool)) (null bool) {
	return o.array(func(b []byte, i int) (int, bool) {
		if next, ok := Match(b, i, "null"); ok {
			add(nil, true)
			return next, true
		}
		s, next, ok := String(b, i)
		if ok {
			add(s, false)
		}
		return next, ok
	})
}

// Uints reads an array of non-negative integers, calling add with each
// in order, or a null array.
func (o *Object) Uints(add func(v uint64)) (null bool) {
	return o.array(func(b []byte, i int) (int, bool) {
		v, next, ok := Uint(b, i)
		if ok {
			add(v)
		}
		return next, ok
	})
}

// array reads an array, or null, with elem reading each element at b[i]
// and returning the index past it.
func (o *Object) array(elem func(b []byte, i int) (next int, ok bool)) (null bool) {
	if o.state != open {
		return false
	}
	b := o.b
	if next, ok := Match(b, o.i, "null"); ok {
		o.i = next
		return true
	}
	if o.i >= len(b) || b[o.i] != '[' {
		o.state = bad
		return false
	}
	i := o.i + 1
	if i < len(b) && b[i] == ']' {
		o.i = i + 1
		return false
	}
	for {
		next, ok := elem(b, i)
		if !ok {
			o.state = bad
			return false
		}
		i = next
		switch {
		case i < len(b) && b[i] == ',':
			i++
		case i < len(b) && b[i] == ']':
			o.i = i + 1
			return false
		default:
			o.state = bad
			return false
		}
	}
}

// Skip passes over any valid value.
func (o *Object) Skip() {
	if o.state != open {
		return
	}
	next, ok := Skip(o.b, o.i)
	if !ok {
		o.state = bad
		return
	}
	o.i = next
}

// End reports, once Next has returned false, whether the whole object was
// recognised, and the index just past its closing brace.
func (o *Object) End() (next int, ok bool) {
	if o.state != closed {
		return 0, false
	}
	return o.i, true
}
