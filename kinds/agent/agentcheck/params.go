package agentcheck

import "github.com/detsim/detsim/hosts"

// The agent family's oracles (issue 15; an amendment to §10.1 written
// in docs/assertions.md). Each names the agent peer it judges.

// EffectOutcomeOnce is effect_outcome_once { peer }: every effect the
// agent starts ends in exactly one outcome of ok, failed, timed_out,
// cancelled.
type EffectOutcomeOnce struct{ Peer string }

// CancelSettlesWithin is cancel_settles_within { peer, within_ns }.
type CancelSettlesWithin struct {
	Peer     string
	WithinNs int64
}

// NoTornSuccess is no_torn_success { peer }: an ok outcome only for a
// stream the provider completed and a tool run the tool committed.
type NoTornSuccess struct{ Peer string }

// NoLostAck is no_lost_ack { peer }: every acknowledged store record is
// in the store every later life recovers.
type NoLostAck struct{ Peer string }

// ToolResultMatched is tool_result_matched { peer }: every tool use gets
// exactly one result.
type ToolResultMatched struct{ Peer string }

// OutputBounded is output_bounded { peer, max_bytes }: no tool result
// enters a request larger than max_bytes.
type OutputBounded struct {
	Peer     string
	MaxBytes int64
}

// RetryBudget is retry_budget { peer, max_attempts }: at most
// max_attempts model calls per turn, no retry after content was
// delivered, none before retry-after elapsed.
type RetryBudget struct {
	Peer        string
	MaxAttempts int64
}

// ResponseBounded is response_bounded { peer, max_bytes }: no model
// response the agent accepts (outcome ok) is larger than max_bytes, as
// the provider measured what it sent.
type ResponseBounded struct {
	Peer     string
	MaxBytes int64
}

// NoCommitAfterSettle is no_commit_after_settle { peer }: no tool goes
// on with a run (a partial write, a commit, a failure of its own) after
// the agent recorded that run as ended otherwise than ok.
type NoCommitAfterSettle struct{ Peer string }

// TurnOutcomeOnce is turn_outcome_once { peer }: every turn the agent
// made a request for (as a provider that reads the conversation records
// it: the HTTP edge) ends in exactly one turn_end.
type TurnOutcomeOnce struct{ Peer string }

// ToolRunOnce is tool_run_once { peer }: no tool use runs twice unless
// its tool is declared idempotent.
type ToolRunOnce struct{ Peer string }

// ToolResultReturned is tool_result_returned { peer }: a tool use the
// agent ran has its result sent back before the agent asks for a later
// turn.
type ToolResultReturned struct{ Peer string }

// TurnNotRepeated is turn_not_repeated { peer }: no request asks for a
// turn already committed.
type TurnNotRepeated struct{ Peer string }

// ToolDeadlineKept is tool_deadline_kept { peer, within_ns }: no tool
// run outlives the agent's tool deadline without the agent ending it.
type ToolDeadlineKept struct {
	Peer     string
	WithinNs int64
}

// NoWorkAfterCancel is no_work_after_cancel { peer, within_ns }: after a
// Cancel, nothing starts once the agent was told, or within_ns after.
type NoWorkAfterCancel struct {
	Peer     string
	WithinNs int64
}

func peer(p *string) hosts.Slot { return hosts.PeerParam("peer", p) }

func (p *EffectOutcomeOnce) Bind() []hosts.Slot { return []hosts.Slot{peer(&p.Peer)} }
func (p *CancelSettlesWithin) Bind() []hosts.Slot {
	return []hosts.Slot{peer(&p.Peer), hosts.TimeParam("within_ns", hosts.Required, &p.WithinNs)}
}
func (p *NoTornSuccess) Bind() []hosts.Slot     { return []hosts.Slot{peer(&p.Peer)} }
func (p *NoLostAck) Bind() []hosts.Slot         { return []hosts.Slot{peer(&p.Peer)} }
func (p *ToolResultMatched) Bind() []hosts.Slot { return []hosts.Slot{peer(&p.Peer)} }
func (p *OutputBounded) Bind() []hosts.Slot {
	return []hosts.Slot{peer(&p.Peer), hosts.CountParam("max_bytes", &p.MaxBytes)}
}
func (p *RetryBudget) Bind() []hosts.Slot {
	return []hosts.Slot{peer(&p.Peer), hosts.CountParam("max_attempts", &p.MaxAttempts)}
}
func (p *ResponseBounded) Bind() []hosts.Slot {
	return []hosts.Slot{peer(&p.Peer), hosts.CountParam("max_bytes", &p.MaxBytes)}
}
func (p *NoCommitAfterSettle) Bind() []hosts.Slot { return []hosts.Slot{peer(&p.Peer)} }
func (p *TurnOutcomeOnce) Bind() []hosts.Slot     { return []hosts.Slot{peer(&p.Peer)} }
func (p *ToolRunOnce) Bind() []hosts.Slot         { return []hosts.Slot{peer(&p.Peer)} }
func (p *ToolResultReturned) Bind() []hosts.Slot  { return []hosts.Slot{peer(&p.Peer)} }
func (p *TurnNotRepeated) Bind() []hosts.Slot     { return []hosts.Slot{peer(&p.Peer)} }
func (p *ToolDeadlineKept) Bind() []hosts.Slot {
	return []hosts.Slot{peer(&p.Peer), hosts.TimeParam("within_ns", hosts.Required, &p.WithinNs)}
}
func (p *NoWorkAfterCancel) Bind() []hosts.Slot {
	return []hosts.Slot{peer(&p.Peer), hosts.TimeParam("within_ns", hosts.Required, &p.WithinNs)}
}

func (p EffectOutcomeOnce) Slots() []hosts.Slot   { return p.Bind() }
func (p CancelSettlesWithin) Slots() []hosts.Slot { return p.Bind() }
func (p NoTornSuccess) Slots() []hosts.Slot       { return p.Bind() }
func (p NoLostAck) Slots() []hosts.Slot           { return p.Bind() }
func (p ToolResultMatched) Slots() []hosts.Slot   { return p.Bind() }
func (p OutputBounded) Slots() []hosts.Slot       { return p.Bind() }
func (p RetryBudget) Slots() []hosts.Slot         { return p.Bind() }
func (p ResponseBounded) Slots() []hosts.Slot     { return p.Bind() }
func (p NoCommitAfterSettle) Slots() []hosts.Slot { return p.Bind() }
func (p TurnOutcomeOnce) Slots() []hosts.Slot     { return p.Bind() }
func (p ToolRunOnce) Slots() []hosts.Slot         { return p.Bind() }
func (p ToolResultReturned) Slots() []hosts.Slot  { return p.Bind() }
func (p TurnNotRepeated) Slots() []hosts.Slot     { return p.Bind() }
func (p ToolDeadlineKept) Slots() []hosts.Slot    { return p.Bind() }
func (p NoWorkAfterCancel) Slots() []hosts.Slot   { return p.Bind() }

// One Kind and one Family line a params type, as every family writes
// them: hosts.AssertionParams asks each type for both, so the lines look
// alike across families and differ only in names.

func (EffectOutcomeOnce) Kind() string   { return "effect_outcome_once" }
func (CancelSettlesWithin) Kind() string { return "cancel_settles_within" }
func (NoTornSuccess) Kind() string       { return "no_torn_success" }
func (NoLostAck) Kind() string           { return "no_lost_ack" }
func (ToolResultMatched) Kind() string   { return "tool_result_matched" }
func (OutputBounded) Kind() string       { return "output_bounded" }
func (RetryBudget) Kind() string         { return "retry_budget" }
func (ResponseBounded) Kind() string     { return "response_bounded" }
func (NoCommitAfterSettle) Kind() string { return "no_commit_after_settle" }
func (TurnOutcomeOnce) Kind() string     { return "turn_outcome_once" }
func (ToolRunOnce) Kind() string         { return "tool_run_once" }
func (ToolResultReturned) Kind() string  { return "tool_result_returned" }
func (TurnNotRepeated) Kind() string     { return "turn_not_repeated" }
func (ToolDeadlineKept) Kind() string    { return "tool_deadline_kept" }
func (NoWorkAfterCancel) Kind() string   { return "no_work_after_cancel" }

func (EffectOutcomeOnce) Family() *hosts.Assertions   { return Family }
func (CancelSettlesWithin) Family() *hosts.Assertions { return Family }
func (NoTornSuccess) Family() *hosts.Assertions       { return Family }
func (NoLostAck) Family() *hosts.Assertions           { return Family }
func (ToolResultMatched) Family() *hosts.Assertions   { return Family }
func (OutputBounded) Family() *hosts.Assertions       { return Family }
func (RetryBudget) Family() *hosts.Assertions         { return Family }
func (ResponseBounded) Family() *hosts.Assertions     { return Family }
func (NoCommitAfterSettle) Family() *hosts.Assertions { return Family }
func (TurnOutcomeOnce) Family() *hosts.Assertions     { return Family }
func (ToolRunOnce) Family() *hosts.Assertions         { return Family }
func (ToolResultReturned) Family() *hosts.Assertions  { return Family }
func (TurnNotRepeated) Family() *hosts.Assertions     { return Family }
func (ToolDeadlineKept) Family() *hosts.Assertions    { return Family }
func (NoWorkAfterCancel) Family() *hosts.Assertions   { return Family }

// Family is the agent family's assertion kinds, in catalog order, and
// their judge: each oracle checks the agent's claims against the
// provider's, the tools' and the engine's records.
var Family = &hosts.Assertions{
	Kinds: []hosts.AssertionKind{
		hosts.Def[EffectOutcomeOnce](hosts.NoPair, hosts.NoPair),
		hosts.Def[CancelSettlesWithin](hosts.NoPair, hosts.NoPair),
		hosts.Def[NoTornSuccess](hosts.NoPair, hosts.NoPair),
		hosts.Def[NoLostAck](hosts.NoPair, hosts.NoPair),
		hosts.Def[ToolResultMatched](hosts.NoPair, hosts.NoPair),
		hosts.Def[OutputBounded](hosts.NoPair, hosts.NoPair),
		hosts.Def[RetryBudget](hosts.NoPair, hosts.NoPair),
		hosts.Def[ResponseBounded](hosts.NoPair, hosts.NoPair),
		hosts.Def[NoCommitAfterSettle](hosts.NoPair, hosts.NoPair),
		hosts.Def[TurnOutcomeOnce](hosts.NoPair, hosts.NoPair),
		hosts.Def[ToolRunOnce](hosts.NoPair, hosts.NoPair),
		hosts.Def[ToolResultReturned](hosts.NoPair, hosts.NoPair),
		hosts.Def[TurnNotRepeated](hosts.NoPair, hosts.NoPair),
		hosts.Def[ToolDeadlineKept](hosts.NoPair, hosts.NoPair),
		hosts.Def[NoWorkAfterCancel](hosts.NoPair, hosts.NoPair),
	},
	Judge: newJudge,
}
