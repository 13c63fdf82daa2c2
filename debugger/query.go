package debugger

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/internal/jsonmember"
	"github.com/detsim/detsim/internal/vtime"
)

// Op is how a condition compares a record's value with the one typed.
type Op uint8

// The operators. OpEq is the zero value, so a Cond written without one
// is an equality.
const (
	OpEq Op = iota // =
	OpNe           // !=
	OpLt           // <
	OpLe           // <=
	OpGt           // >
	OpGe           // >=
)

var opText = [...]string{"=", "!=", "<", "<=", ">", ">="}

func (o Op) String() string {
	if int(o) < len(opText) {
		return opText[o]
	}
	return "?"
}

// ordered reports whether o compares magnitudes (numbers, times, steps).
func (o Op) ordered() bool { return o >= OpLt }

// Operators is the list error messages name.
const Operators = "= != < <= > >="

// misspelt maps operators people type by habit to the one meant.
var misspelt = map[string]string{"==": "=", "=>": ">=", "=<": "<=", "<>": "!=", "=!": "!=", "!": "!=", "≠": "!=", "≤": "<=", "≥": ">="}

// Cond is one condition on a record: its type, its host ("-" for engine
// records bound to none), its time or step, or the value of one of its
// event's members, compared by Op. time=T and step=N (Op =) are lower
// bounds, as they have always been: "from T on".
type Cond struct {
	Key, Val string
	Op       Op
	N        int64 // time (ns) and step: the bound
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
		parts = append(parts, c.String())
	}
	if q.Sub != "" {
		parts = append(parts, q.Sub)
	}
	return strings.Join(parts, " ")
}

// String writes c in the form ParseQuery reads.
func (c Cond) String() string {
	switch c.Key {
	case "time":
		return "time" + c.Op.String() + vtime.Seconds(c.N)
	case "step":
		return "step" + c.Op.String() + strconv.FormatInt(c.N, 10)
	}
	return c.Key + c.Op.String() + c.Val
}

// ParseQuery reads a search or record condition list: space-separated
// conditions key OP value, OP one of = != < <= > >= (type=T, host=H,
// time=T and step=N as lower bounds, time<T or step>=N as comparisons,
// or any event member: subject=orch to!=alive bytes>1400), and whatever
// is not a condition is a substring the record's line must contain.
//
// Numbers are read as the stepper prints them too: digits grouped in
// threes by spaces ("bytes=1 430", "seq>=185 517 177") are one number.
func ParseQuery(s string) (Query, error) {
	var q Query
	var sub []string
	seen := map[string]bool{}
	toks := strings.Fields(s)
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		key, op, val, isCond, err := splitCond(tok)
		if err != nil {
			return Query{}, err
		}
		if !isCond {
			sub = append(sub, tok)
			continue
		}
		// Grouped digits: "1 430" and "185 517 177" are one number.
		grouped := false
		if groupHead(val, key == "time") {
			for i+1 < len(toks) && isGroup(toks[i+1], key == "time") && !hasUnit(val) {
				val += toks[i+1]
				grouped = true
				i++
			}
		}
		if val == "" {
			return Query{}, fmt.Errorf("%s%s needs a value", key, op)
		}
		if seen[key] {
			return Query{}, fmt.Errorf("%s given twice", key)
		}
		seen[key] = true
		c := Cond{Key: key, Val: val, Op: op}
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
			if op.ordered() {
				return Query{}, fmt.Errorf("%s%s%s: %s is a name; it compares with = or !=", key, op, val, key)
			}
			if !validName(val) {
				return Query{}, fmt.Errorf("%s must be 1-64 of [A-Za-z0-9_-]", key)
			}
		default:
			if len(val) > 64 || strings.ContainsAny(val, "\"\\") {
				return Query{}, fmt.Errorf("%s: a value is at most 64 bytes, without quotes or backslashes", key)
			}
			if n, ok := number(val); ok && op.ordered() {
				c.Val = n
			} else if grouped {
				c.Val = strings.TrimPrefix(val, "+") // "1 430", as the screen prints it, is 1430
			}
		}
		q.Conds = append(q.Conds, c)
	}
	q.Sub = strings.Join(sub, " ")
	return q, nil
}

// splitCond cuts a token into key, operator and value. A token whose
// key is not a member name, or that holds no operator, is text to search
// for (isCond false). An operator people type by habit ("==", "=>") is
// an error that names the right one.
func splitCond(tok string) (key string, op Op, val string, isCond bool, err error) {
	i := 0
	for i < len(tok) && (tok[i] >= 'a' && tok[i] <= 'z' || tok[i] >= '0' && tok[i] <= '9' || tok[i] == '_') {
		i++
	}
	j := i
	for j < len(tok) && strings.IndexByte("<>=!", tok[j]) >= 0 {
		j++
	}
	if j == i {
		// A non-ASCII comparison sign (≤ ≥ ≠) right after a key.
		for _, bad := range slices.Sorted(maps.Keys(misspelt)) {
			if len(bad) > 1 && bad[0] >= 0x80 && strings.HasPrefix(tok[i:], bad) && validKey(tok[:i]) {
				return "", 0, "", false, fmt.Errorf("unknown operator %q in %q: did you mean %s? (operators: %s)", bad, tok, misspelt[bad], Operators)
			}
		}
		return "", 0, "", false, nil
	}
	key, sym, val := tok[:i], tok[i:j], tok[j:]
	if !validKey(key) {
		return "", 0, "", false, nil
	}
	for k, s := range opText {
		if s == sym {
			return key, Op(k), val, true, nil
		}
	}
	if want, ok := misspelt[sym]; ok {
		return "", 0, "", false, fmt.Errorf("unknown operator %q in %q: did you mean %s? (operators: %s)", sym, tok, want, Operators)
	}
	return "", 0, "", false, fmt.Errorf("unknown operator %q in %q (operators: %s)", sym, tok, Operators)
}

// groupHead reports whether v can be the first group of a number the
// stepper printed with its digits grouped in threes: one to three digits
// ("1" of "1 430"); for a time, the digits after the point may be its
// first group ("63.412" of "63.412 518 204s").
func groupHead(v string, isTime bool) bool {
	v = strings.TrimPrefix(strings.TrimPrefix(v, "+"), "-")
	if isTime {
		if _, frac, ok := strings.Cut(v, "."); ok {
			return len(frac) == 3 && digits(frac)
		}
	}
	return len(v) >= 1 && len(v) <= 3 && digits(v)
}

// isGroup reports whether tok is a further group of three digits (for
// a time, the last group may carry the unit: "204s").
func isGroup(tok string, isTime bool) bool {
	if isTime {
		tok = strings.TrimRight(tok, "nuµms")
	}
	return len(tok) == 3 && digits(tok)
}

// hasUnit reports whether a time typed so far already ends in its unit,
// so no further group belongs to it.
func hasUnit(v string) bool { return v != "" && (v[len(v)-1] < '0' || v[len(v)-1] > '9') }

// number reads a decimal number as typed, digits grouped or not, and
// returns it canonical (no grouping, no leading '+'); ok false when v is
// not one.
func number(v string) (string, bool) {
	v = strings.Map(func(r rune) rune {
		if r == ' ' || r == '_' || r == '\u202f' || r == '\u2009' {
			return -1
		}
		return r
	}, v)
	v = strings.TrimPrefix(v, "+")
	body := strings.TrimPrefix(v, "-")
	if !decimal(body) {
		return "", false
	}
	return v, true
}

// decimal reports whether s is digits, or digits, a point and digits.
func decimal(s string) bool {
	whole, frac, hasDot := strings.Cut(s, ".")
	return whole != "" && digits(whole) && (!hasDot || frac != "" && digits(frac))
}

// A character class check alike in shape to tbnet.ValidName's: a query key
// has its own letters and length.
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
			if (string(bundle.LineType(line)) == c.Val) != (c.Op == OpEq) {
				return false
			}
		case "host":
			v, ok := member(line, "host_id")
			if !ok {
				return false
			}
			is := false
			if string(v) == "null" {
				is = c.Val == "-"
			} else {
				is = valueIs(v, c.Val)
			}
			if is != (c.Op == OpEq) {
				return false
			}
		case "time":
			if !bound(c.Op, at, c.N) {
				return false
			}
		case "step":
			if !bound(c.Op, step, c.N) {
				return false
			}
		default:
			v, ok := member(bundle.LinePayload(line), c.Key)
			if !ok || !compare(c.Op, v, c.Val) {
				return false
			}
		}
	}
	return true
}

// bound compares a time or step with a condition's; = is "at or after".
func bound(op Op, v, n int64) bool {
	switch op {
	case OpEq, OpGe:
		return v >= n
	case OpNe:
		return v != n
	case OpLt:
		return v < n
	case OpLe:
		return v <= n
	case OpGt:
		return v > n
	}
	return false
}

// compare applies op to a raw JSON value and what the user typed. An
// ordering holds only for a number against a number, compared exactly
// as decimals (never through a float).
func compare(op Op, raw []byte, want string) bool {
	switch op {
	case OpEq:
		return valueIs(raw, want)
	case OpNe:
		return !valueIs(raw, want)
	}
	if len(raw) == 0 || raw[0] == '"' || raw[0] == '[' || raw[0] == '{' || raw[0] == 't' || raw[0] == 'f' || raw[0] == 'n' {
		return false
	}
	c, ok := cmpDecimal(string(raw), want)
	if !ok {
		return false
	}
	switch op {
	case OpLt:
		return c < 0
	case OpLe:
		return c <= 0
	case OpGt:
		return c > 0
	case OpGe:
		return c >= 0
	}
	return false
}

// cmpDecimal compares two decimal numbers written without exponents
// ("-12", "1430", "0.25"): -1, 0 or +1; ok false if either is not one.
func cmpDecimal(a, b string) (int, bool) {
	na, nb := strings.HasPrefix(a, "-"), strings.HasPrefix(b, "-")
	a, b = strings.TrimPrefix(a, "-"), strings.TrimPrefix(b, "-")
	if !decimal(a) || !decimal(b) {
		return 0, false
	}
	aw, af, _ := strings.Cut(a, ".")
	bw, bf, _ := strings.Cut(b, ".")
	aw, bw = strings.TrimLeft(aw, "0"), strings.TrimLeft(bw, "0")
	af, bf = strings.TrimRight(af, "0"), strings.TrimRight(bf, "0")
	zero := func(w, f string) bool { return w == "" && f == "" }
	if zero(aw, af) {
		na = false
	}
	if zero(bw, bf) {
		nb = false
	}
	if na != nb {
		if na {
			return -1, true
		}
		return 1, true
	}
	c := 0
	switch {
	case len(aw) != len(bw):
		c = cmpInt(len(aw), len(bw))
	case aw != bw:
		c = strings.Compare(aw, bw)
	default:
		n := max(len(af), len(bf))
		c = strings.Compare(af+strings.Repeat("0", n-len(af)), bf+strings.Repeat("0", n-len(bf)))
	}
	if na {
		c = -c
	}
	return c, true
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// member finds `"key":` in a JSON object written by detsim's encoders
// and returns the value's raw bytes.
func member(obj []byte, key string) ([]byte, bool) { return jsonmember.Find(obj, key) }

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
