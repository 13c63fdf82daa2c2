package debugger

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/internal/vtime"
)

// Cond is one condition on a record: its type, its host ("-" for engine
// records bound to none), a lower bound on its time or step, or the value
// of one of its event's members.
type Cond struct {
	Key, Val string
	N        int64 // time (ns) and step: the lower bound
}

// Query selects records: every condition must hold for one record, and
// Sub, when set, must occur in the record's line (a plain substring of
// its JSON).
type Query struct {
	Sub   string
	Conds []Cond
}

// Equal reports whether two queries are the same.
func (q Query) Equal(o Query) bool { return q.Sub == o.Sub && slices.Equal(q.Conds, o.Conds) }

// Empty reports whether q selects every record.
func (q Query) Empty() bool { return q.Sub == "" && len(q.Conds) == 0 }

// String writes q in the form ParseQuery reads.
func (q Query) String() string {
	var parts []string
	for _, c := range q.Conds {
		switch c.Key {
		case "time":
			parts = append(parts, "time="+vtime.Seconds(c.N))
		case "step":
			parts = append(parts, "step="+strconv.FormatInt(c.N, 10))
		default:
			parts = append(parts, c.Key+"="+c.Val)
		}
	}
	if q.Sub != "" {
		parts = append(parts, q.Sub)
	}
	return strings.Join(parts, " ")
}

// ParseQuery reads a search or record condition list: space-separated
// key=value conditions (type=T, host=H, time=T and step=N as lower
// bounds, or any event member: subject=orch to=suspect), and whatever is
// not key=value is a substring the record's line must contain.
func ParseQuery(s string) (Query, error) {
	var q Query
	var sub []string
	seen := map[string]bool{}
	for _, tok := range strings.Fields(s) {
		key, val, ok := strings.Cut(tok, "=")
		if !ok || !validKey(key) {
			sub = append(sub, tok)
			continue
		}
		if val == "" {
			return Query{}, fmt.Errorf("%s= needs a value", key)
		}
		if seen[key] {
			return Query{}, fmt.Errorf("%s given twice", key)
		}
		seen[key] = true
		c := Cond{Key: key, Val: val}
		switch key {
		case "time":
			ns, err := ParseTime(val, "ns")
			if err != nil {
				return Query{}, err
			}
			c.Val, c.N = "", ns
		case "step":
			n, err := parseCount(val)
			if err != nil {
				return Query{}, errors.New("step must be a non-negative integer")
			}
			c.Val, c.N = "", n
		case "type", "host":
			if !validName(val) {
				return Query{}, fmt.Errorf("%s must be 1-64 of [A-Za-z0-9_-]", key)
			}
		default:
			if len(val) > 64 || strings.ContainsAny(val, "\"\\") {
				return Query{}, fmt.Errorf("%s: a value is at most 64 bytes, without quotes or backslashes", key)
			}
		}
		q.Conds = append(q.Conds, c)
	}
	q.Sub = strings.Join(sub, " ")
	return q, nil
}

func validKey(k string) bool {
	if k == "" || len(k) > 32 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Match reports whether the record line (events.ndjson bytes), emitted
// by step at virtual time at, meets q.
func (q *Query) Match(line []byte, step, at int64) bool {
	if q.Sub != "" && !bytes.Contains(line, []byte(q.Sub)) {
		return false
	}
	for i := range q.Conds {
		c := &q.Conds[i]
		switch c.Key {
		case "type":
			if string(bundle.LineType(line)) != c.Val {
				return false
			}
		case "host":
			v, ok := member(line, "host_id")
			if !ok {
				return false
			}
			if string(v) == "null" {
				if c.Val != "-" {
					return false
				}
			} else if !valueIs(v, c.Val) {
				return false
			}
		case "time":
			if at < c.N {
				return false
			}
		case "step":
			if step < c.N {
				return false
			}
		default:
			v, ok := member(bundle.LinePayload(line), c.Key)
			if !ok || !valueIs(v, c.Val) {
				return false
			}
		}
	}
	return true
}

// member finds `"key":` in a JSON object written by detsim's encoders
// (no spaces, ids without escapes) and returns the value's raw bytes.
func member(obj []byte, key string) ([]byte, bool) {
	var pat [40]byte
	p := append(append(append(pat[:0], '"'), key...), '"', ':')
	i := bytes.Index(obj, p)
	if i < 0 {
		return nil, false
	}
	v := obj[i+len(p):]
	if len(v) == 0 {
		return nil, false
	}
	switch v[0] {
	case '"':
		j := bytes.IndexByte(v[1:], '"')
		if j < 0 {
			return nil, false
		}
		return v[:j+2], true
	case '[':
		j := bytes.IndexByte(v, ']')
		if j < 0 {
			return nil, false
		}
		return v[:j+1], true
	}
	j := bytes.IndexAny(v, ",}")
	if j < 0 {
		return v, true
	}
	return v[:j], true
}

// valueIs compares a raw JSON value with what the user typed: a string's
// contents, a number or literal as written, or an array holding it.
func valueIs(raw []byte, want string) bool {
	switch {
	case len(raw) >= 2 && raw[0] == '"':
		return string(raw[1:len(raw)-1]) == want
	case len(raw) >= 2 && raw[0] == '[':
		return bytes.Contains(raw, []byte(`"`+want+`"`)) || string(raw) == want
	}
	return string(raw) == want
}
