package causal

import (
	"errors"
	"fmt"
	"strings"
)

// Link is one record of a chain and what it says: a jump target
// (events.ndjson#L<Line>, the step that emitted it) with one line of
// text.
type Link struct {
	Line int64
	Step int64 // 0 when the chain was read from a bundle
	At   int64
	Host string
	Type string // the record's type: a chain is made of real records
	// Text says what the record shows; Why, when set, what it means for
	// the chain (a probe's ping "arrived 0.31s after the probe timeout,
	// behind 3 messages, 14 KB, on sgp→orch").
	Text, Why string
	// Depth 0 is the chain itself, newest first; 1 a detail under the
	// link above it (a refutation and why it did not win).
	Depth int
	// Origin marks the record the chain starts from: nothing before it
	// in the run caused it.
	Origin bool
}

// Chain is a state, explained: links from the record that set it back to
// its origin.
type Chain struct {
	Links []Link
	// Complete says the chain reaches an origin. When it does not, Note
	// says why it stops (the index no longer holds what came before).
	Complete bool
	Note     string
}

// Explains is the optional interface of a host kind (hosts.Kind) whose
// hosts' state can be explained: `W` in the stepper and `detsim why`
// find it by a type assertion on the kind. It is declared here, beside
// what it returns, so the kind contract in package hosts need not know
// the causal index.
type Explains interface {
	Explainer() Explainer
}

// Explainer is what a host kind gives to have its state explained
// (Explains).
type Explainer interface {
	// Keeps lists the records and members the index must hold.
	Keeps() []Keep
	// Accepts says in words which records Explain explains, for the
	// error when asked about another.
	Accepts() string
	// Target finds the record to explain for "why does host hold
	// subject so at time at": its latest transition about subject at or
	// before at.
	Target(ix *Index, host, subject string, at int64) (Rec, bool)
	// Explain builds r's chain; false when r is not a record it explains.
	Explain(ix *Index, r Rec) (Chain, bool)
}

// ErrNotTransition is returned by Why for a record no explainer
// explains; the error names what they accept.
var ErrNotTransition = errors.New("not a state transition")

// Why explains the record on line with the first of exps that explains
// it. add, when set, offers that record to an empty index that skips
// nothing (Add or AddRecord): a record the index skips (a start-up view)
// is then explained on its own.
func Why(ix *Index, exps []Explainer, line int64, add func(*Index)) (Chain, error) {
	r, ok := ix.At(line)
	if !ok && add != nil {
		one := ix.unskipped()
		add(one)
		r, ok = one.At(line)
	}
	if ok {
		for _, x := range exps {
			if c, ok := x.Explain(r.ix, r); ok {
				return c, nil
			}
		}
	}
	var acc []string
	for _, x := range exps {
		acc = append(acc, x.Accepts())
	}
	what := "record " + fmt.Sprint(line)
	if ok {
		what += " (" + r.Type() + ")"
	}
	if len(acc) == 0 {
		return Chain{}, fmt.Errorf("%w: %s; no host kind of this run explains its state", ErrNotTransition, what)
	}
	return Chain{}, fmt.Errorf("%w: %s; why explains %s", ErrNotTransition, what, strings.Join(acc, "; "))
}

// Keeps is the union of what exps keep, for one index serving them all.
func Keeps(exps []Explainer) []Keep {
	var out []Keep
	for _, x := range exps {
		out = append(out, x.Keeps()...)
	}
	return out
}

// Link makes the link of record r.
func (r Rec) Link(text, why string) Link {
	return Link{Line: r.Line(), Step: r.Step(), At: r.At(), Host: r.Host(), Type: r.Type(), Text: text, Why: why}
}
