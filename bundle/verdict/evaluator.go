package verdict

import (
	"errors"
	"fmt"
	"slices"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
)

// Evaluator judges a run's assertions from its records, fed in stream
// order. It is not safe for concurrent use; Clone it for a checkpoint.
type Evaluator struct {
	assertions []scenarios.Assertion
	results    []*hosts.Result // one per assertion, in declaration order
	checkers   []checker       // the core's own assertions
	judges     []family        // one per kind family the scenario uses
	reads      []hosts.Read    // what each judge reads of the record at hand, reused
	world      world
	want       want  // what the unresolved core checkers need
	now        int64 // the time of the last record read
	unresolved int
	firstFail  int // index of the first assertion to fail while streaming; -1 if none
	err        error
	rec        hosts.EventRec // the record handed to the judges, reused
	// val is the record at hand as its host built it (ObserveEvent), nil
	// when it came as JSON; payload is its JSON, once a judge that reads
	// no values needed it (serialised at most once a record, into a
	// buffer reused).
	val     hosts.Event
	payload []byte
	encoded bool
	// written is the record at hand's JSON as the engine wrote it
	// (ObserveBuilt), handed to the judges that read JSON instead of
	// serialising val again; nil otherwise. Borrowed for the call.
	written []byte
}

// family is one kind's judge and which assertions it judges.
type family struct {
	decl  *hosts.Assertions
	judge hosts.Judge
	of    []int // assertion indices, in declaration order
}

// New prepares an evaluator for assertions, in declaration order. It
// fails only on an assertion it cannot interpret (no parameters, or
// ones scenarios.Assertion.Check rejects), which no loaded scenario
// holds: the scenario loader's checks are stricter.
func New(assertions []scenarios.Assertion) (*Evaluator, error) {
	e := &Evaluator{assertions: assertions, firstFail: -1}
	var params [][]hosts.AssertionParams
	kinds := make([]int, len(assertions)) // family index, or -1 for the core's
	for i, a := range assertions {
		if err := a.Check(); err != nil {
			return nil, fmt.Errorf("verdict: assertion %q (%s): %w", a.Name, a.Kind, err)
		}
		fam := a.Params.Family()
		if fam == nil {
			kinds[i] = -1
			e.checkers = append(e.checkers, constructor(a.Params)(&e.world))
			continue
		}
		j := slices.IndexFunc(e.judges, func(f family) bool { return f.decl == fam })
		if j < 0 {
			j = len(e.judges)
			e.judges = append(e.judges, family{decl: fam})
			params = append(params, nil)
		}
		kinds[i] = j
		e.judges[j].of = append(e.judges[j].of, i)
		params[j] = append(params[j], a.Params)
	}
	for j := range e.judges {
		e.judges[j].judge = e.judges[j].decl.Judge(params[j])
	}
	e.bind()
	e.unresolved = len(assertions)
	e.refreshWants()
	return e, nil
}

// bind points results at the checkers' and the judges' own.
func (e *Evaluator) bind() {
	e.results = make([]*hosts.Result, len(e.assertions))
	core := 0
	for i := range e.assertions {
		if e.assertions[i].Params.Family() == nil {
			e.results[i] = e.checkers[core].result()
			core++
		}
	}
	for _, f := range e.judges {
		rs := f.judge.Results()
		for k, i := range f.of {
			e.results[i] = rs[k]
		}
	}
}

func (e *Evaluator) refreshWants() {
	e.want = 0
	for _, c := range e.checkers {
		if !c.result().Resolved {
			e.want |= c.wants()
		}
	}
}

// Observe feeds the record on events.ndjson line `line` (1-based). Lines
// must come in file order. A malformed record is skipped and reported by
// Err. Observe keeps nothing of rec.Event once it returns, so the caller
// may reuse the payload buffer.
func (e *Evaluator) Observe(line int, rec bundle.EventRecord) {
	if err := e.observe(line, rec); err != nil && !errors.Is(err, hosts.ErrRecheck) {
		e.malformed(line, err)
	}
}

// ObserveEvent feeds the record on events.ndjson line `line` as the value
// its host built (engine.Options.Headless), with no JSON: a judge that
// reads values (hosts.ValueReader) is handed ev itself, any other the
// JSON ev.AppendJSON writes, serialised once for all of them. The
// verdicts are those Observe reaches from the record's line in the
// bundle. ObserveEvent keeps nothing of ev once it returns.
func (e *Evaluator) ObserveEvent(line int, at int64, hostID, kindTag string, ev hosts.Event) {
	e.val, e.encoded = ev, false
	err := e.observe(line, bundle.EventRecord{VirtualTimeNs: at, HostID: hostID, KindTag: kindTag, Type: ev.Type()})
	e.val = nil
	if err != nil {
		e.malformed(line, err)
	}
}

// ObserveBuilt is ObserveEvent for a run that serialised the record
// too (a batch run writing its bundle: engine.Options.JudgeBuilt):
// payload is ev's JSON as written to events.ndjson, handed to the judges
// that read JSON rather than serialising ev a second time. Its verdicts
// are those EvaluateBundle reaches from the bundle written, which stays
// the authority a reader of the bundle uses (batch
// TestRun_PostRunAgreesWithStreaming_Library holds them byte-equal).
// ObserveBuilt keeps nothing of ev or payload once it returns.
func (e *Evaluator) ObserveBuilt(line int, at int64, hostID, kindTag string, ev hosts.Event, payload []byte) {
	e.val, e.encoded, e.written = ev, false, payload
	err := e.observe(line, bundle.EventRecord{VirtualTimeNs: at, HostID: hostID, KindTag: kindTag, Type: ev.Type(), Event: payload})
	e.val, e.written = nil, nil
	if err != nil {
		e.malformed(line, err)
	}
}

// observe is Observe, returning hosts.ErrRecheck, having changed nothing
// but the time, for an unchecked payload a judge could not read on its
// fast path (EvaluateBundle hands the same line again, checked).
func (e *Evaluator) observe(line int, rec bundle.EventRecord) error {
	t := rec.VirtualTimeNs
	if t < e.now {
		return fmt.Errorf("virtual_time_ns %d is before the previous record's %d", t, e.now)
	}
	if e.unresolved == 0 {
		e.now = t
		return nil
	}
	if t > e.now {
		e.hold(e.now, t-1)
		e.now = t
	}
	var first error
	if len(e.judges) > 0 {
		if len(e.reads) != len(e.judges) {
			e.reads = make([]hosts.Read, len(e.judges))
		}
		unchecked := 0
		for i, f := range e.judges {
			if e.reads[i] = f.judge.Reads(rec.KindTag, rec.Type); e.reads[i] == hosts.ReadUnchecked {
				unchecked++
			}
		}
		// Those reading the payload unchecked go first, so one that
		// cannot read it asks for the line again before anything has
		// seen it. Two of them cannot both go first: the line is asked
		// for checked at once.
		if rec.Unchecked && unchecked > 1 {
			return hosts.ErrRecheck
		}
		for i, f := range e.judges {
			if e.reads[i] != hosts.ReadUnchecked {
				continue
			}
			if err := e.hand(f.judge, e.reads[i], line, &rec); errors.Is(err, hosts.ErrRecheck) {
				return err
			} else if err != nil && first == nil {
				first = err
			}
		}
		for i, f := range e.judges {
			if e.reads[i] == hosts.ReadSkip || e.reads[i] == hosts.ReadUnchecked {
				continue
			}
			if err := e.hand(f.judge, e.reads[i], line, &rec); err != nil && first == nil {
				first = err
			}
		}
	}
	if e.want&wantRecords != 0 {
		e.world.rates.observe(line, rec.Type, t)
		for _, c := range e.checkers {
			if c.wants()&wantRecords != 0 && !c.result().Resolved {
				c.onRecord(&e.world, line, rec)
			}
		}
	}
	e.settle(line)
	return first
}

// hand gives a judge the record, its payload only if it reads it: as
// the value the host built when it came as one and the judge reads it so,
// else as JSON.
func (e *Evaluator) hand(j hosts.Judge, read hosts.Read, line int, rec *bundle.EventRecord) error {
	e.rec = hosts.EventRec{Line: line, TimeNs: rec.VirtualTimeNs, HostID: rec.HostID, KindTag: rec.KindTag, Type: rec.Type, Unchecked: rec.Unchecked, Read: read}
	switch {
	case read == hosts.ReadEnvelope:
	case e.val == nil:
		e.rec.Event = rec.Event
	case readsValue(j, rec.KindTag, rec.Type):
		e.rec.Value = e.val
	default:
		// What the engine would have written: the simulator's own
		// JSON, so it is handed as checked, as the engine's line is.
		if e.written != nil {
			e.rec.Event = e.written
			break
		}
		if !e.encoded {
			e.payload, e.encoded = e.val.AppendJSON(e.payload[:0]), true
		}
		e.rec.Event = e.payload
	}
	return j.Observe(&e.rec)
}

func readsValue(j hosts.Judge, kindTag, typ string) bool {
	v, ok := j.(hosts.ValueReader)
	return ok && v.ReadsValue(kindTag, typ)
}

// Reads says what Observe would look at of a record with this kind_tag
// and type now: what an unresolved core assertion or a judge needs. A
// reader may hand Observe any record Reads skips without its Event
// (bundle.ScanEvents), since only its envelope and type are used.
func (e *Evaluator) Reads(kindTag, typ string) bundle.Read {
	if e.unresolved == 0 {
		return bundle.Skip
	}
	read := bundle.Skip
	for _, f := range e.judges {
		switch f.judge.Reads(kindTag, typ) {
		case hosts.ReadWhole:
			read = bundle.Whole
		case hosts.ReadUnchecked:
			if read == bundle.Skip {
				read = bundle.Unchecked
			}
		}
	}
	return read
}

// hold tells every unresolved assertion that the current state held
// over [from, to].
func (e *Evaluator) hold(from, to int64) {
	for _, c := range e.checkers {
		if !c.result().Resolved {
			c.hold(&e.world, from, to)
		}
	}
	for _, f := range e.judges {
		f.judge.Hold(from, to)
	}
}

// settle stamps the verdicts resolved by the record on line with that
// line and notes the first failure.
func (e *Evaluator) settle(line int) {
	changed := false
	for i, r := range e.results {
		if !r.Resolved || r.Line != 0 {
			continue
		}
		r.Line = line
		e.unresolved--
		changed = true
		if r.Outcome == Fail && e.firstFail < 0 {
			e.firstFail = i
		}
	}
	if changed {
		e.refreshWants()
	}
}

func (e *Evaluator) malformed(line int, err error) {
	if e.err == nil {
		e.err = fmt.Errorf("%s line %d: %w", bundle.EventsFile, line, err)
	}
}

// Err reports the first malformed record fed to Observe, if any.
func (e *Evaluator) Err() error { return e.err }

// Resolved reports whether the records so far determine every verdict
// (spec §4.8). It is true when no assertion was declared.
func (e *Evaluator) Resolved() bool { return e.unresolved == 0 }

// Status reports each assertion's standing, in declaration order.
func (e *Evaluator) Status() []Partial {
	out := make([]Partial, len(e.results))
	for i, r := range e.results {
		out[i] = Partial{Name: e.assertions[i].Name, Kind: e.assertions[i].Kind, Resolved: r.Resolved}
		if r.Resolved {
			out[i].Outcome, out[i].Reason, out[i].Line = r.Outcome, r.Reason, r.Line
			out[i].Evidence = append([]Evidence(nil), r.Evidence...)
		}
	}
	return out
}

// DecidedAfter reports whether a record after line resolved an assertion
// (any), and whether one so resolved failed — only the assertion named
// name when name is not "". The debugger's "verdict", "fail" and
// "fail=NAME" breakpoints ask it after every step; it allocates nothing.
func (e *Evaluator) DecidedAfter(line int, name string) (decided, failed bool) {
	for i, r := range e.results {
		if !r.Resolved || r.Line <= line {
			continue
		}
		decided = true
		if r.Outcome == Fail && (name == "" || e.assertions[i].Name == name) {
			failed = true
		}
	}
	return decided, failed
}

// FirstFailure names the first assertion that failed while records were
// read and the line of the record that decided it. Of two decided by the
// same record, the one declared first is named.
func (e *Evaluator) FirstFailure() (name string, line int, ok bool) {
	if e.firstFail < 0 {
		return "", 0, false
	}
	return e.assertions[e.firstFail].Name, e.results[e.firstFail].Line, true
}

// Finish returns the verdicts of a run that ended at endNs (the scenario
// duration or the early-termination time; never taken as earlier than
// the last record), in declaration order. It leaves e unchanged, so
// streaming may continue.
func (e *Evaluator) Finish(endNs int64) []Verdict {
	return e.Clone().finish(endNs, false)
}

// Conclude is Finish for an evaluator nobody feeds again (a batch run's,
// once its last record is judged): it concludes e itself instead of a
// copy. cut is as for EvaluateCutBundle: the run stopped at an output
// cap before its end. e must not be fed or finished again.
func (e *Evaluator) Conclude(endNs int64, cut bool) []Verdict { return e.finish(endNs, cut) }

// finish is Finish for an evaluator nobody feeds again: it concludes e
// itself instead of a copy, which for a thousand peers' views saves
// copying tens of megabytes. cut says the run was stopped short of its
// end by an output cap: a Pass that only the end of the records decided
// is then Inconclusive (EvaluateCutBundle).
func (e *Evaluator) finish(endNs int64, cut bool) []Verdict {
	if e.unresolved > 0 {
		end := max(endNs, e.now)
		e.hold(e.now, end)
		var open []bool
		if cut {
			open = make([]bool, len(e.results))
			for i, r := range e.results {
				open[i] = !r.Resolved
			}
		}
		for _, c := range e.checkers {
			if !c.result().Resolved {
				c.finish(&e.world, end)
			}
		}
		for _, f := range e.judges {
			f.judge.Finish(end)
		}
		for i, r := range e.results {
			if cut && open[i] && r.Outcome == Pass {
				r.Outcome = Inconclusive
				r.Reason = fmt.Sprintf("the run stopped at %s, before its end (truncated or interrupted), so the rest of it is unjudged; up to there: %s", fmtNs(end), r.Reason)
			}
		}
	}
	out := make([]Verdict, len(e.results))
	for i, r := range e.results {
		a := e.assertions[i]
		out[i] = Verdict{
			Name: a.Name, Kind: a.Kind, Parameters: a.ParamMap(),
			Outcome: r.Outcome, Evidence: r.Evidence, Reason: r.Reason,
		}
	}
	return out
}

// Clone returns a deep copy for an engine checkpoint: feeding either one
// never changes the other.
func (e *Evaluator) Clone() *Evaluator {
	c := *e
	c.payload, c.written = nil, nil // a buffer of its own
	c.world = e.world.clone()
	c.checkers = make([]checker, len(e.checkers))
	for i, k := range e.checkers {
		c.checkers[i] = k.clone()
	}
	c.judges = slices.Clone(e.judges)
	for i := range c.judges {
		c.judges[i].judge = e.judges[i].judge.Clone()
	}
	c.bind()
	return &c
}
