package debugger

import (
	"errors"
	"fmt"
	"slices"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/causal"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/natsort"
)

// WhyQuery is what `detsim why` asks of a bundle: how Host came to hold
// Subject as it did at virtual time At, or, with Line set, how the
// record on that line came to be.
type WhyQuery struct {
	Host, Subject string
	At            int64
	Line          int64
}

// WhyError is a question the bundle cannot answer as asked (an unknown
// host, no transition at that time, a record no kind explains): the
// CLI's exit 2.
type WhyError struct{ Msg string }

func (e *WhyError) Error() string { return e.Msg }

// whyMargin is how far past the time asked the bundle is read: a chain
// looks back, but the fate of a late ping or ack can land after the
// transition it caused.
const whyMargin = 60_000_000_000

// WhyInBundle explains from a bundle's records, as the stepper's W does
// from a session's: the chain back to the origin (causal.Explains of
// the kinds whose records the bundle holds), so it works on simulated,
// live and testbed bundles alike. It reads events.ndjson once, keeping
// only what the explainers ask for (in causal's bounded index), up to a
// minute past the time asked. It returns the line of the record it
// explained.
func WhyInBundle(dir string, reg *hosts.Registry, q WhyQuery) (causal.Chain, int64, error) {
	var all []causal.Explainer
	explains := map[string]causal.Explainer{}
	for _, tag := range reg.Tags() {
		k, _ := reg.Lookup(tag)
		if x, ok := k.(causal.Explains); ok {
			all = append(all, x.Explainer())
			explains[tag] = x.Explainer()
		}
	}
	if len(all) == 0 {
		return causal.Chain{}, 0, errors.New("no host kind explains its state")
	}
	ix := causal.NewIndex(0, causal.Keeps(all)...)
	// The kinds whose records the bundle holds, in the order met: only
	// they explain, and only they are named when the question is not one
	// they answer (a SWIM user is not told about raft's leader_change).
	var exps []causal.Explainer
	kinds := map[string]bool{}
	var add func(*causal.Index) // the record asked about, should the index skip it
	seen := map[string]bool{}
	var hostList []string
	stop := errors.New("past the time asked")
	limit := q.At + whyMargin
	err := bundle.ScanEvents(dir, func(kind, typ string) bundle.Read {
		if x, ok := explains[kind]; ok && !kinds[kind] {
			kinds[kind] = true
			exps = append(exps, x)
		}
		if ix.Wants(typ) {
			return bundle.Unchecked
		}
		return bundle.Skip
	}, func(line int, rec bundle.EventRecord) error {
		if q.Line == 0 && rec.VirtualTimeNs > limit {
			return stop
		}
		if rec.HostID != "" && !seen[rec.HostID] {
			seen[rec.HostID] = true
			hostList = append(hostList, rec.HostID)
		}
		if rec.Event != nil {
			ix.AddRecord(int64(line), 0, rec.VirtualTimeNs, rec.HostID, rec.Type, rec.Event)
			if int64(line) == q.Line {
				at, host, typ, ev := rec.VirtualTimeNs, rec.HostID, rec.Type, slices.Clone(rec.Event)
				add = func(one *causal.Index) { one.AddRecord(int64(line), 0, at, host, typ, ev) }
			}
		}
		if q.Line > 0 && int64(line) > q.Line+200_000 {
			return stop
		}
		return nil
	})
	if err != nil && !errors.Is(err, stop) {
		return causal.Chain{}, 0, err
	}
	if len(exps) == 0 {
		return causal.Chain{}, 0, &WhyError{"no host kind of this bundle explains its state"}
	}
	line := q.Line
	if line == 0 {
		hostList = natsort.Sorted(hostList)
		for _, h := range []string{q.Host, q.Subject} {
			if !slices.Contains(hostList, h) {
				return causal.Chain{}, 0, &WhyError{fmt.Sprintf("no host %q in the bundle%s (hosts: %s)", h, didYouMean(h, hostList), list(hostList))}
			}
		}
		for _, x := range exps {
			if r, ok := x.Target(ix, q.Host, q.Subject, q.At); ok {
				line = r.Line()
				break
			}
		}
		if line == 0 {
			return causal.Chain{}, 0, &WhyError{fmt.Sprintf("%s records no transition about %s at or before %s; why explains %s", q.Host, q.Subject, fmtAt(q.At), accepts(exps))}
		}
	}
	c, err := causal.Why(ix, exps, line, add)
	if err != nil {
		return causal.Chain{}, 0, &WhyError{err.Error()}
	}
	return c, line, nil
}

func accepts(exps []causal.Explainer) string {
	s := ""
	for i, x := range exps {
		if i > 0 {
			s += "; "
		}
		s += x.Accepts()
	}
	return s
}

func fmtAt(ns int64) string { return Breakpoint{Kind: BreakTime, N: ns}.String()[len("time="):] }
