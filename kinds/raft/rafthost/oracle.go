package rafthost

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonmember"
	"github.com/detsim/detsim/internal/jsonscan"
)

// The raft kind's assertions (docs/raft.md, "Assertions"): Raft's safety
// properties (the Raft paper's Figure 3) and the liveness a cluster owes
// its clients, judged from the records the hosts write. Each oracle has
// its own file; this one declares their parameters and the judge that
// hands each oracle the records it reads, routed by kind_tag.

// ElectionSafety is election_safety {}: at most one leader per term, and
// no member grants its vote to two candidates in one term.
type ElectionSafety struct{}

// LogMatching is log_matching {}: two logs that hold an entry with the
// same index and term hold the same entries up to it.
type LogMatching struct{}

// LeaderCompleteness is leader_completeness {}: a member that becomes
// leader holds every entry committed before it did.
type LeaderCompleteness struct{}

// StateMachineSafety is state_machine_safety {}: no two members apply
// different entries at one index.
type StateMachineSafety struct{}

// ProposalCommitsWithin is proposal_commits_within { after_ns,
// within_ns }: every put a client issues at or after after_ns is applied
// by some member within within_ns of its issue.
type ProposalCommitsWithin struct{ AfterNs, WithinNs int64 }

// NoLeaderChange is no_leader_change { window_start_ns, window_end_ns }:
// in the window no election begins (no member becomes a candidate) and
// no leader steps down.
type NoLeaderChange struct{ WindowStartNs, WindowEndNs int64 }

// NoRaftPanic is no_raft_panic {}: etcd raft never panics in a member.
type NoRaftPanic struct{}

// CatchesUpAfterHeal is catches_up_after_heal { within_ns }: once the
// last partition has healed (and every other fault is over), each
// member connected to a quorum applies every committed index within
// within_ns.
type CatchesUpAfterHeal struct{ WithinNs int64 }

// Linearizable is linearizable {}: the history of kind_config.clients'
// puts and reads is linearizable, key by key (oracle_linearizable.go).
type Linearizable struct{}

func (*ElectionSafety) Bind() []hosts.Slot     { return nil }
func (*LogMatching) Bind() []hosts.Slot        { return nil }
func (*LeaderCompleteness) Bind() []hosts.Slot { return nil }
func (*StateMachineSafety) Bind() []hosts.Slot { return nil }
func (*NoRaftPanic) Bind() []hosts.Slot        { return nil }
func (*Linearizable) Bind() []hosts.Slot       { return nil }

func (p *CatchesUpAfterHeal) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.SpanParam("within_ns", &p.WithinNs)}
}

func (p *ProposalCommitsWithin) Bind() []hosts.Slot {
	return []hosts.Slot{hosts.TimeParam("after_ns", hosts.DefaultRunStart, &p.AfterNs), hosts.SpanParam("within_ns", &p.WithinNs)}
}

func (p *NoLeaderChange) Bind() []hosts.Slot {
	return []hosts.Slot{
		hosts.TimeParam("window_start_ns", hosts.DefaultRunStart, &p.WindowStartNs),
		hosts.TimeParam("window_end_ns", hosts.DefaultRunEnd, &p.WindowEndNs),
	}
}

func (p ElectionSafety) Slots() []hosts.Slot        { return p.Bind() }
func (p LogMatching) Slots() []hosts.Slot           { return p.Bind() }
func (p LeaderCompleteness) Slots() []hosts.Slot    { return p.Bind() }
func (p StateMachineSafety) Slots() []hosts.Slot    { return p.Bind() }
func (p ProposalCommitsWithin) Slots() []hosts.Slot { return p.Bind() }
func (p NoLeaderChange) Slots() []hosts.Slot        { return p.Bind() }
func (p NoRaftPanic) Slots() []hosts.Slot           { return p.Bind() }
func (p CatchesUpAfterHeal) Slots() []hosts.Slot    { return p.Bind() }
func (p Linearizable) Slots() []hosts.Slot          { return p.Bind() }

// One Kind and one Family line a params type, as every family writes
// them: hosts.AssertionParams asks each type for both, so the lines look
// alike across families and differ only in names.

func (ElectionSafety) Kind() string        { return "election_safety" }
func (LogMatching) Kind() string           { return "log_matching" }
func (LeaderCompleteness) Kind() string    { return "leader_completeness" }
func (StateMachineSafety) Kind() string    { return "state_machine_safety" }
func (ProposalCommitsWithin) Kind() string { return "proposal_commits_within" }
func (NoLeaderChange) Kind() string        { return "no_leader_change" }
func (NoRaftPanic) Kind() string           { return "no_raft_panic" }
func (CatchesUpAfterHeal) Kind() string    { return "catches_up_after_heal" }
func (Linearizable) Kind() string          { return "linearizable" }

func (ElectionSafety) Family() *hosts.Assertions        { return family }
func (LogMatching) Family() *hosts.Assertions           { return family }
func (LeaderCompleteness) Family() *hosts.Assertions    { return family }
func (StateMachineSafety) Family() *hosts.Assertions    { return family }
func (ProposalCommitsWithin) Family() *hosts.Assertions { return family }
func (NoLeaderChange) Family() *hosts.Assertions        { return family }
func (NoRaftPanic) Family() *hosts.Assertions           { return family }
func (CatchesUpAfterHeal) Family() *hosts.Assertions    { return family }
func (Linearizable) Family() *hosts.Assertions          { return family }

// family is the kind's hosts.Oracle.
var family = &hosts.Assertions{
	Kinds: []hosts.AssertionKind{
		hosts.Def[ElectionSafety](hosts.NoPair, hosts.NoPair),
		hosts.Def[LogMatching](hosts.NoPair, hosts.NoPair),
		hosts.Def[LeaderCompleteness](hosts.NoPair, hosts.NoPair),
		hosts.Def[StateMachineSafety](hosts.NoPair, hosts.NoPair),
		hosts.Def[ProposalCommitsWithin](hosts.NoPair, hosts.DeadlinePair),
		hosts.Def[NoLeaderChange](hosts.WindowPair, hosts.NoPair),
		hosts.Def[NoRaftPanic](hosts.NoPair, hosts.NoPair),
		hosts.Def[CatchesUpAfterHeal](hosts.NoPair, hosts.NoPair),
		hosts.Def[Linearizable](hosts.NoPair, hosts.NoPair),
	},
	Judge: newJudge,
}

// oracle is one assertion being judged. observe is handed each record
// of a type it reads (reads), in stream order, until its result is
// resolved; hold says nothing happened up to and including to; finish
// closes the run.
type oracle interface {
	reads(typ string) bool
	observe(r *rec) error
	hold(to int64)
	finish(endNs int64)
	result() *hosts.Result
	clone() oracle
}

// rec is one raft record as the oracles read it.
type rec struct {
	line int
	at   int64
	host string
	typ  string
	p    hosts.Payload
	// v is the record as its host built it, for the types the judge
	// reads so (ReadsValue); p is then nil. Borrowed for the call.
	v hosts.Event
	// A log_append as appended read it; an apply as entry read it.
	app     appended
	appErr  error
	appRead bool
	ent     entryAt
	entErr  error
	entRead bool
	// terms and chains are the judge's buffers a log_append's JSON is
	// read into, reused from record to record (app's may be a value's
	// own, which must not be written).
	terms, chains []uint64
}

// entryAt is what an apply record says of its entry.
type entryAt struct{ index, term, chain uint64 }

// entry reads an apply's index, term and chain, once for the three
// oracles that read applies.
func (r *rec) entry() (entryAt, error) {
	if a, ok := r.v.(*apply); ok {
		return entryAt{jsonNum(a.index), jsonNum(a.term), a.chain}, nil
	}
	if !r.entRead {
		r.entRead = true
		if r.ent.index, r.entErr = r.num("index"); r.entErr != nil {
			return r.ent, r.entErr
		}
		if r.ent.term, r.entErr = r.num("term"); r.entErr != nil {
			return r.ent, r.entErr
		}
		r.ent.chain, r.entErr = r.chain("chain")
	}
	return r.ent, r.entErr
}

func (r *rec) cite() hosts.Cite { return hosts.Cite{Line: r.line, TimeNs: r.at} }

// str and num read a member the record must have.
func (r *rec) str(name string) (string, error) {
	if r.v != nil {
		if s, ok := valueStr(r.v, name); ok {
			return s, nil
		}
		return "", fmt.Errorf("%s: no %q", r.typ, name)
	}
	if !r.p.Has(name) {
		return "", fmt.Errorf("%s: no %q", r.typ, name)
	}
	return r.p.Str(name), nil
}

func (r *rec) num(name string) (uint64, error) {
	if r.v != nil {
		if n, ok := valueNum(r.v, name); ok {
			return jsonNum(n), nil
		}
		return 0, fmt.Errorf("%s: no %q", r.typ, name)
	}
	if !r.p.Has(name) {
		return 0, fmt.Errorf("%s: no %q", r.typ, name)
	}
	n := r.p.Num(name)
	if n < 0 {
		return 0, fmt.Errorf("%s: %q is negative", r.typ, name)
	}
	return uint64(n), nil
}

// chain reads a log-prefix chain (or another digest), written as 16 hex
// digits: as the hosts write it without allocating, and any other way
// through str.
func (r *rec) chain(name string) (uint64, error) {
	if r.v != nil {
		if c, ok := valueChain(r.v, name); ok {
			return c, nil
		}
		return 0, fmt.Errorf("%s: no %q", r.typ, name)
	}
	if raw, ok := jsonmember.Find(r.p, name); ok && len(raw) == 18 && raw[0] == '"' && raw[17] == '"' {
		if c, ok := hex64(raw[1:17]); ok {
			return c, nil
		}
	}
	s, err := r.str(name)
	if err != nil {
		return 0, err
	}
	c, err := strconv.ParseUint(s, 16, 64)
	if err != nil || len(s) != 16 {
		return 0, fmt.Errorf("%s: %q is not 16 hex digits", r.typ, name)
	}
	return c, nil
}

// hex64 reads 16 lower- or upper-case hex digits.
func hex64(b []byte) (uint64, bool) {
	var v uint64
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | uint64(c)
	}
	return v, true
}

// appended is a log_append record read whole.
type appended struct {
	First, Last uint64
	Terms       []uint64
	Chains      []uint64
}

// appended reads a log_append once for every oracle that reads it (two
// do, and its entries are most of what the judge reads).
func (r *rec) appended() (appended, error) {
	if !r.appRead {
		r.appRead = true
		if la, ok := r.v.(*logAppend); ok {
			r.app, r.appErr = checkAppended(appended{First: la.first, Last: la.last, Terms: la.terms, Chains: la.chains})
			return r.app, r.appErr
		}
		r.app, r.appErr = readAppended(r.p, r.terms[:0], r.chains[:0])
		if cap(r.app.Terms) > cap(r.terms) {
			r.terms = r.app.Terms[:0]
		}
		if cap(r.app.Chains) > cap(r.chains) {
			r.chains = r.app.Chains[:0]
		}
	}
	return r.app, r.appErr
}

// text is a string member as hosts.Payload.Str reads it: "" when absent.
func (r *rec) text(name string) string {
	if r.v != nil {
		s, _ := valueStr(r.v, name)
		return s
	}
	return r.p.Str(name)
}

// valueStr, valueNum and valueChain read by name the members of the
// records the judge reads as values (ReadsValue), as their JSON
// (events.go) spells them; false for a member the record does not write.
func valueStr(v hosts.Event, name string) (string, bool) {
	switch e := v.(type) {
	case *apply:
		switch name {
		case "op":
			return e.op, true
		case "req":
			return e.req, true
		case "key":
			return e.key, true
		case "value":
			return e.value, true
		}
	case *proposalEv:
		switch name {
		case "req":
			return e.req, true
		case "to":
			return e.to, true
		case "key":
			return e.key, true
		}
	}
	return "", false
}

func valueNum(v hosts.Event, name string) (uint64, bool) {
	switch e := v.(type) {
	case *apply:
		switch name {
		case "index":
			return e.index, true
		case "term":
			return e.term, true
		}
	case *proposalEv:
		if name == "bytes" {
			return uint64(e.bytes), true
		}
	case *logAppend:
		switch name {
		case "first":
			return e.first, true
		case "last":
			return e.last, true
		}
	}
	return 0, false
}

func valueChain(v hosts.Event, name string) (uint64, bool) {
	if e, ok := v.(*apply); ok {
		switch name {
		case "chain":
			return e.chain, true
		case "cmd":
			return e.cmd, true
		case "state":
			return e.state, true
		}
	}
	return 0, false
}

// jsonNum is a number as num reads it from JSON (hosts.Payload.Num):
// one of more than 18 digits reads as 0, so a value read so must too.
func jsonNum(n uint64) uint64 {
	if n >= 1e18 {
		return 0
	}
	return n
}

// readAppended reads p, its terms and chains appended to terms and
// chains (the judge's, reused from record to record: every oracle copies
// what it keeps of them).
func readAppended(p hosts.Payload, terms, chains []uint64) (appended, error) {
	a, ok := scanAppended(p, terms, chains)
	if !ok {
		// Not as the hosts write it (another producer's spacing or
		// member order): the slow, general reader.
		var raw struct {
			First  uint64   `json:"first"`
			Last   uint64   `json:"last"`
			Terms  []uint64 `json:"terms"`
			Chains []string `json:"chains"`
		}
		if err := json.Unmarshal(p, &raw); err != nil {
			return appended{}, fmt.Errorf("log_append: %v", err)
		}
		a = appended{First: raw.First, Last: raw.Last, Terms: raw.Terms, Chains: make([]uint64, len(raw.Chains))}
		for i, s := range raw.Chains {
			c, err := strconv.ParseUint(s, 16, 64)
			if err != nil || len(s) != 16 {
				return appended{}, fmt.Errorf("log_append: chain %q is not 16 hex digits", s)
			}
			a.Chains[i] = c
		}
	}
	return checkAppended(a)
}

// checkAppended holds a log_append's terms and chains to its range.
func checkAppended(a appended) (appended, error) {
	n := a.Last - a.First + 1
	if a.Last < a.First || uint64(len(a.Terms)) != n || uint64(len(a.Chains)) != n {
		return appended{}, fmt.Errorf("log_append: [%d, %d] with %d terms and %d chains", a.First, a.Last, len(a.Terms), len(a.Chains))
	}
	return a, nil
}

// scanAppended reads a log_append in one pass without allocating more
// than its two slices; false for anything it does not recognise,
// which readAppended then reads the general way.
func scanAppended(p []byte, terms, chains []uint64) (appended, bool) {
	a := appended{Terms: terms, Chains: chains}
	o := jsonscan.NewObject(p, 0)
	for o.Next() {
		switch string(o.Key()) {
		case "first":
			a.First, _ = o.Uint()
		case "last":
			a.Last, _ = o.Uint()
		case "terms":
			o.Uints(func(t uint64) { a.Terms = append(a.Terms, t) })
		case "chains":
			o.Texts(func(s []byte, null bool) {
				c, err := strconv.ParseUint(string(s), 16, 64)
				if err != nil || len(s) != 16 || null {
					o.Fail()
				}
				a.Chains = append(a.Chains, c)
			})
		default:
			o.Skip()
		}
	}
	_, ok := o.End()
	return a, ok
}

// judge hands each unresolved oracle the records it reads.
type judge struct {
	oracles []oracle
	results []*hosts.Result
	// r is the record being observed, one for the run: no oracle keeps
	// it past observe, and a record each was a third of the judge's
	// allocations.
	r rec
	// buf holds the JSON of a value the judge does not read as one.
	buf []byte
}

// ownValue says v is one of the structs valueStr, valueNum and
// valueChain read.
func ownValue(v hosts.Event) bool {
	switch v.(type) {
	case *apply, *proposalEv, *logAppend:
		return true
	}
	return false
}

func newJudge(params []hosts.AssertionParams) hosts.Judge {
	j := &judge{}
	for _, p := range params {
		j.oracles = append(j.oracles, construct(p))
	}
	j.bind()
	return j
}

// construct builds the oracle of p, one of this package's structs.
//
// Every family's judge builds, feeds and clones its checkers in the same
// few lines, and dispatches on its params' types in a switch like this
// one: each is over the family's own checker type and params, which the
// contract (hosts.Judge) leaves to the family.
func construct(p hosts.AssertionParams) oracle {
	switch p := p.(type) {
	case ElectionSafety:
		return newElectionSafety()
	case LogMatching:
		return newLogMatching()
	case LeaderCompleteness:
		return newLeaderCompleteness()
	case StateMachineSafety:
		return newStateMachineSafety()
	case ProposalCommitsWithin:
		return newCommitWithin(p)
	case NoLeaderChange:
		return newNoLeaderChange(p)
	case NoRaftPanic:
		return &noPanic{}
	case CatchesUpAfterHeal:
		return newCatchUp(p)
	case Linearizable:
		return newLinearizable()
	}
	panic(fmt.Sprintf("rafthost: assertion parameters of type %T", p))
}

func (j *judge) bind() {
	j.results = make([]*hosts.Result, len(j.oracles))
	for i, o := range j.oracles {
		j.results[i] = o.result()
	}
}

func (j *judge) Results() []*hosts.Result { return j.results }

// Reads routes by kind_tag: only raft records, and the engine's
// mutation records (no raft record has that type), whole, of a type
// some unresolved oracle reads.
func (j *judge) Reads(tag, typ string) hosts.Read {
	if tag != Tag && (tag != engineTag || typ != tMutation) {
		return hosts.ReadSkip
	}
	// Three records in four are messages, which no oracle reads
	// (TestJudge_ReadsNoMessages): skipped without asking each.
	if typ == tSent || typ == tReceived {
		return hosts.ReadSkip
	}
	for _, o := range j.oracles {
		if !o.result().Resolved && o.reads(typ) {
			return hosts.ReadWhole
		}
	}
	return hosts.ReadSkip
}

// ReadsValue: the records most of the judge's reading is of (every
// apply, log_append and proposal: a tenth of the run when parsed back
// from their JSON) are read from the structs the hosts built; the rest,
// a few a run, from their JSON.
func (j *judge) ReadsValue(tag, typ string) bool {
	return tag == Tag && (typ == tApply || typ == tLogAppend || typ == tProposal)
}

func (j *judge) Observe(e *hosts.EventRec) error {
	r := &j.r
	*r = rec{line: e.Line, at: e.TimeNs, host: e.HostID, typ: e.Type, p: hosts.Payload(e.Event), v: e.Value, terms: r.terms, chains: r.chains}
	if r.v != nil && !ownValue(r.v) {
		// A value of another producer of the tag: read from the JSON it
		// writes, as the bundle holds it.
		j.buf = r.v.AppendJSON(j.buf[:0])
		r.p, r.v = hosts.Payload(j.buf), nil
	}
	for _, o := range j.oracles {
		if !o.result().Resolved && o.reads(r.typ) {
			if err := o.observe(r); err != nil {
				return err
			}
		}
	}
	return nil
}

func (j *judge) Hold(_, to int64) {
	for _, o := range j.oracles {
		if !o.result().Resolved {
			o.hold(to)
		}
	}
}

func (j *judge) Finish(endNs int64) {
	for _, o := range j.oracles {
		if !o.result().Resolved {
			o.finish(endNs)
		}
	}
}

func (j *judge) Clone() hosts.Judge {
	c := &judge{oracles: make([]oracle, len(j.oracles))}
	for i, o := range j.oracles {
		c.oracles[i] = o.clone()
	}
	c.bind()
	return c
}

// count writes n things: "1 term", "3 terms".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// secs writes a virtual time as reasons do.
func secs(ns int64) string { return hosts.Seconds(ns) }
