package bundle

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonscan"
	"github.com/detsim/detsim/internal/jsonw"
)

// A folded line (docs/bundle.md, "Folded lines") is the line of a run's
// first record with one more envelope member, last:
//
//	{"virtual_time_ns":…,"host_id":…,"kind_tag":…,"event":{…},"fold":{"member":"subject","values":["a","b","c"]}}
//
// It stands for one record per value: the first record with the event's
// member "subject" (the one spelled with values[0]) given each value in
// turn, in order. EachLine expands it back, so every reader sees the
// lines the run would have written one by one, with their numbers.
const (
	lineFoldKey    = `,"fold":{"member":`
	lineFoldValues = `,"values":[`
)

var foldKey = []byte(lineFoldKey)

// AppendFoldedEventLineAt is AppendEventLineAt for a hosts.Folded event of
// two or more records: one line standing for all of them. at is where
// At(0)'s JSON starts in dst.
func AppendFoldedEventLineAt(dst []byte, virtualTimeNs int64, env Envelope, ev hosts.Folded) (_ []byte, at int) {
	dst = append(dst, lineTimeKey...)
	dst = jsonw.AppendInt(dst, virtualTimeNs)
	dst = append(dst, env...)
	at = len(dst)
	dst = ev.At(0).AppendJSON(dst)
	dst = append(dst, lineFoldKey...)
	dst = jsonw.AppendString(dst, ev.FoldMember())
	dst = append(dst, lineFoldValues...)
	for i := range ev.Len() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonw.AppendString(dst, ev.FoldValue(i))
	}
	return append(dst, ']', '}', '}', '\n'), at
}

// fold is a folded line taken apart: the first record's line and where
// in it the folded member's value lies, and the values' JSON.
type fold struct {
	first  []byte // the line of the first record, the fold member removed
	at, to int    // first[at:to] is values[0]'s JSON
	values [][]byte
}

// errFold is a line that ends like a folded line but is not one.
var errFold = errors.New(`malformed "fold" member`)

// parseFold takes a line (without its newline) apart when it is a folded
// line. ok is false for a line with no fold at all; err is set for one
// whose fold cannot be expanded. values reuses f's slice. A line is
// folded only when it ends in the fold member as the envelope's last:
// `,"fold":{"member":"M","values":["…",…]}}` closing the line, which a
// member of the event cannot do (the event object closes before the
// line's own brace), and keys and strings cannot hold the quotes of the
// key unescaped.
func (f *fold) parse(b []byte) (ok bool, err error) {
	if !bytes.HasSuffix(b, []byte("]}}")) {
		return false, nil
	}
	k := bytes.LastIndex(b, foldKey)
	if k < 0 {
		return false, nil
	}
	i := k + len(foldKey)
	member, i, okm := jsonscan.String(b, i)
	if !okm {
		return false, nil
	}
	if i, okm = jsonscan.Match(b, i, lineFoldValues); !okm {
		return false, nil
	}
	f.values = f.values[:0]
	for i < len(b) && b[i] == '"' {
		j, okv := jsonscan.Skip(b, i)
		if !okv {
			return true, errFold
		}
		f.values = append(f.values, b[i:j])
		if i = j; i < len(b) && b[i] == ',' {
			i++
		}
	}
	if i != len(b)-3 || len(f.values) == 0 {
		return true, errFold
	}
	f.first = b[:k]
	// The first record's member: `"M":` then values[0], exactly once and
	// in the event.
	pat := make([]byte, 0, len(member)+len(f.values[0])+4)
	pat = jsonw.AppendString(pat, string(member))
	pat = append(pat, ':')
	pat = append(pat, f.values[0]...)
	at := bytes.Index(f.first, pat)
	if at < bytes.Index(f.first, eventKey) || bytes.Contains(f.first[at+1:], pat) {
		return true, fmt.Errorf("%w: the first record must hold %s once", errFold, pat)
	}
	f.at = at + len(pat) - len(f.values[0])
	f.to = at + len(pat)
	return true, nil
}

// expand calls fn with each record's line in turn (without its newline;
// valid until fn returns), built in *buf.
func (f *fold) expand(buf *[]byte, fn func(i int, b []byte) error) error {
	for i, v := range f.values {
		b := append((*buf)[:0], f.first[:f.at]...)
		b = append(b, v...)
		b = append(b, f.first[f.to:]...)
		b = append(b, '}')
		*buf = b
		if err := fn(i, b); err != nil {
			return err
		}
	}
	return nil
}

// LineRecords is how many records a line of events.ndjson (without its
// newline) stands for: 1, or a folded line's values. A fold that cannot
// be expanded is an error.
func LineRecords(b []byte) (int, error) {
	var f fold
	ok, err := f.parse(b)
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return 1, nil
	}
	return len(f.values), nil
}

// Unfolder numbers the lines of an events.ndjson read in order and
// expands its folded lines: EachLine's expansion for a reader that splits
// the file itself (schemadiff). The zero value is ready.
type Unfolder struct {
	f     fold
	buf   []byte
	lines int
}

// Each calls fn with the record line b stands for, or each record a
// folded b stands for, and its number; the line fn is given is valid until
// fn returns. A fold that cannot be expanded is a *LineError.
func (u *Unfolder) Each(b []byte, fn func(line int, b []byte) error) error {
	ok, err := u.f.parse(b)
	if err != nil {
		return &LineError{Line: u.lines + 1, Err: err}
	}
	if !ok {
		u.lines++
		return fn(u.lines, b)
	}
	return u.f.expand(&u.buf, func(_ int, b []byte) error {
		u.lines++
		return fn(u.lines, b)
	})
}

// Lines is how many record lines Each has handed out.
func (u *Unfolder) Lines() int { return u.lines }

// RecordBytes is the size events.ndjson in dir would have with one line a
// record: its size with every folded line expanded (EachLine), which a
// reader that sizes its work by the records, not the file (render's
// inlined texts), uses in place of ContentSize.
func RecordBytes(dir string) (int64, error) {
	var n int64
	err := EachLine(dir, func(_ int, b []byte) error {
		n += int64(len(b)) + 1
		return nil
	})
	return n, err
}
