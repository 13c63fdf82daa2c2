package debugger

import (
	"fmt"
	"slices"
	"strings"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
)

// Watch is one value of one host's state, followed for its changes:
// "host=fra member=orch field=state" is fra's view of orch. What records
// set it is the host kind's declaration (hosts.Watcher), so the
// debugger names no kind's events.
type Watch struct {
	Host, Member, Field string
	decl                hosts.Watch
	q                   Query // the records that set the value
}

// WatchSyntax is the one-line summary of watch specs.
const WatchSyntax = "host=H field=F, or host=H member=M field=F (a value of H's view of M)"

var watchKeys = []string{"host", "member", "field"}

// ParseWatch reads a watch spec: host=H, field=F and, for a value about
// a member, member=M, in any order. Names are checked against a run only
// by Schema.CheckWatch, which also makes the watch usable.
func ParseWatch(spec string) (Watch, error) {
	var w Watch
	if len(spec) > maxSpecLen {
		return Watch{}, fmt.Errorf("watch: spec longer than %d bytes", maxSpecLen)
	}
	for _, tok := range strings.Fields(spec) {
		key, op, val, isCond, err := splitCond(tok)
		switch {
		case err != nil:
			return Watch{}, fmt.Errorf("watch %q: %w", spec, err)
		case !isCond:
			return Watch{}, fmt.Errorf("watch %q: %q is not key=value; want %s", spec, tok, WatchSyntax)
		case op != OpEq:
			return Watch{}, fmt.Errorf("watch %q: %s takes =, not %s", spec, key, op)
		case !validName(val):
			return Watch{}, fmt.Errorf("watch %q: %s must be 1-64 of [A-Za-z0-9_-]", spec, key)
		}
		var dst *string
		switch key {
		case "host":
			dst = &w.Host
		case "member":
			dst = &w.Member
		case "field":
			dst = &w.Field
		default:
			return Watch{}, fmt.Errorf("watch %q: no key %q%s (keys: host, member, field)", spec, key, didYouMean(key, watchKeys))
		}
		if *dst != "" {
			return Watch{}, fmt.Errorf("watch %q: %s given twice", spec, key)
		}
		*dst = val
	}
	if w.Host == "" || w.Field == "" {
		return Watch{}, fmt.Errorf("watch %q: want %s", spec, WatchSyntax)
	}
	return w, nil
}

// String writes w in the form ParseWatch reads.
func (w Watch) String() string {
	s := "host=" + w.Host
	if w.Member != "" {
		s += " member=" + w.Member
	}
	return s + " field=" + w.Field
}

// Doc says what the watched value is, from the kind's declaration.
func (w Watch) Doc() string { return w.decl.Doc }

// CheckWatch checks w's names against the run, with a "did you mean" for
// a misspelt host, member or field, and resolves what records set the
// value; w is usable only after it.
func (s *Schema) CheckWatch(w *Watch) error {
	if !slices.Contains(s.hosts, w.Host) {
		return fmt.Errorf("watch %s: no host %q%s (hosts: %s)", w, w.Host, didYouMean(w.Host, s.hosts), list(s.hosts))
	}
	decls := s.watches[w.Host]
	var fields []string
	for _, d := range decls {
		if !slices.Contains(fields, d.Field) {
			fields = append(fields, d.Field)
		}
		if d.Field == w.Field && (d.Member != "") == (w.Member != "") {
			w.decl = d
		}
	}
	if w.decl.Type == "" {
		switch {
		case len(decls) == 0:
			return fmt.Errorf("watch %s: %s is a %s host, and that kind declares no value to watch", w, w.Host, s.kinds[w.Host])
		case !slices.Contains(fields, w.Field):
			return fmt.Errorf("watch %s: a %s host has no field %q%s (fields: %s)", w, s.kinds[w.Host], w.Field, didYouMean(w.Field, fields), s.watchList(w.Host))
		case w.Member == "":
			return fmt.Errorf("watch %s: %s is a value about a member: add member=M (fields: %s)", w, w.Field, s.watchList(w.Host))
		default:
			return fmt.Errorf("watch %s: %s is a value of the host itself: leave member= out (fields: %s)", w, w.Field, s.watchList(w.Host))
		}
	}
	if w.Member != "" && !slices.Contains(s.hosts, w.Member) {
		return fmt.Errorf("watch %s: no member %q%s (members are the run's hosts: %s)", w, w.Member, didYouMean(w.Member, s.hosts), list(s.hosts))
	}
	d := w.decl
	q := Query{Conds: []Cond{{Key: "type", Val: d.Type}}}
	if d.Host == "" {
		q.Conds = append(q.Conds, Cond{Key: "host", Val: w.Host})
	} else {
		q.Conds = append(q.Conds, Cond{Key: d.Host, Val: w.Host})
	}
	if d.Member != "" {
		q.Conds = append(q.Conds, Cond{Key: d.Member, Val: w.Member})
	}
	w.q = q
	return nil
}

// watchList names the fields a host's kind declares, saying which need
// member=.
func (s *Schema) watchList(host string) string {
	var out []string
	for _, d := range s.watches[host] {
		f := d.Field
		if d.Member != "" {
			f = "member=M field=" + f
		} else {
			f = "field=" + f
		}
		out = append(out, f+" ("+d.Doc+")")
	}
	return strings.Join(out, "; ")
}

// Query is the records that set w's value, whatever they set it to.
func (w Watch) Query() Query { return w.q }

// changedFrom is Query with the value different from v: the records that
// change a value that is v.
func (w Watch) changedFrom(v string) Query {
	q := w.q
	q.Conds = append(slices.Clone(q.Conds), Cond{Key: w.decl.Value, Val: v, Op: OpNe})
	return q
}

// Value reads the value a record sets, if it is one that sets w's.
func (w Watch) Value(line []byte, step, at int64) (string, bool) {
	if !w.q.Match(line, step, at) {
		return "", false
	}
	return w.valueOf(line)
}

func (w Watch) valueOf(line []byte) (string, bool) {
	raw, ok := member(bundle.LinePayload(line), w.decl.Value)
	if !ok {
		return "", false
	}
	if len(raw) >= 2 && raw[0] == '"' {
		return string(raw[1 : len(raw)-1]), true
	}
	return string(raw), true
}

// Change is one change of a watched value: the record that made it, the
// step that emitted it, and the value before ("" when the record is the
// first to set it) and after.
type Change struct {
	Line, Step, At int64
	Old, New       string
}

// Watcher follows a watch through a run record by record (--batch
// --watch): Feed it every line, and it reports each change.
type Watcher struct {
	w    Watch
	cur  string
	seen bool
}

// NewWatcher follows w, which CheckWatch has resolved.
func NewWatcher(w Watch) *Watcher { return &Watcher{w: w} }

// Feed reads one record; it reports a change when the record sets the
// value to something else than it was (or sets it first).
func (t *Watcher) Feed(line, step, at int64, b []byte) (Change, bool) {
	v, ok := t.w.Value(b, step, at)
	if !ok || t.seen && v == t.cur {
		return Change{}, false
	}
	c := Change{Line: line, Step: step, At: at, Old: t.cur, New: v}
	t.cur, t.seen = v, true
	return c, true
}
