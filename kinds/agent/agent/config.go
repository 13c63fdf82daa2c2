package agent

import (
	"slices"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/kindcfg"
)

// Planted bugs (kind_config.bug): each breaks one behaviour an oracle
// guards, so the oracle's planted-fault test can show it catches it
// (docs/agents.md). The default, "", is the correct agent.
const (
	BugNone                 = ""
	BugAckBeforeWrite       = "ack_before_write"       // no_lost_ack: acks a record before its write, never retries the write
	BugAcceptTruncated      = "accept_truncated"       // no_torn_success: a stream closed without message_stop counts as ok
	BugDropTimeoutOutcome   = "drop_timeout_outcome"   // effect_outcome_once: a timed-out call gets no outcome
	BugSlowCancel           = "slow_cancel"            // cancel_settles_within: tools are not told to cancel; waits them out
	BugDropCancelledResults = "drop_cancelled_results" // tool_result_matched: a cancelled tool gets no synthesised result
	BugNoOutputCap          = "no_output_cap"          // output_bounded: tool output enters the next request uncapped
	BugRetryAfterContent    = "retry_after_content"    // retry_budget: retries a call that already delivered content
	BugIgnoreRetryAfter     = "ignore_retry_after"     // retry_budget: retries before retry-after elapses
	// Bugs that lie: the agent's own records stay consistent, only the
	// facts (what the provider received and sent, what the tools did,
	// the engine's Cancel) show them (docs/assertions.md, "Claims
	// against facts").
	BugUnrecordedRetry  = "unrecorded_retry"   // effect_outcome_once: retries are sent with no started record and no outcome
	BugCancelUntold     = "cancel_untold"      // no_commit_after_settle: a Cancel settles running tools as cancelled without telling them
	BugTimeoutUntold    = "timeout_untold"     // no_commit_after_settle: a tool timeout is recorded without telling the tool
	BugIgnoreCancel     = "ignore_cancel"      // cancel_settles_within: a Cancel is ignored, not even recorded
	BugMisreportOutput  = "misreport_output"   // output_bounded: tool output enters the request uncapped; the record says capped
	BugNoResponseCap    = "no_response_cap"    // response_bounded: no limit on a response's size
	BugSkipBadEvents    = "skip_bad_events"    // no_torn_success: an event with malformed SSE or JSON is skipped, the rest accepted
	BugLenientToolInput = "lenient_tool_input" // no_torn_success: tool input that does not parse (duplicated or reordered fragments) is accepted
	BugRepeatTurnEnd    = "repeat_turn_end"    // turn_outcome_once: a turn's end is reported twice
	// Bugs only the provider's and the tools' records show
	// (docs/assertions.md, "What the edge saw").
	BugRepeatAnsweredTurn = "repeat_answered_turn" // turn_not_repeated, tool_run_once: a restart calls the model again for a turn whose call ended ok, and re-runs its tools
	BugDropToolResult     = "drop_tool_result"     // tool_result_returned: the next request carries no tool result
)

// Bugs lists every planted bug.
var Bugs = []string{BugAckBeforeWrite, BugAcceptTruncated, BugDropTimeoutOutcome, BugSlowCancel,
	BugDropCancelledResults, BugNoOutputCap, BugRetryAfterContent, BugIgnoreRetryAfter,
	BugUnrecordedRetry, BugCancelUntold, BugTimeoutUntold, BugIgnoreCancel, BugMisreportOutput,
	BugNoResponseCap, BugSkipBadEvents, BugLenientToolInput, BugRepeatTurnEnd, BugRepeatAnsweredTurn, BugDropToolResult}

const maxTime = int64(1) << 62

// config is an agent's kind_config, read once (immutable: shared by
// clones and lives).
type config struct {
	provider          string
	tools             []kindcfg.Pair // tool name → peer, sorted by name
	steps             []string
	turns             int64
	firstByteTimeout  int64
	idleTimeout       int64
	callTimeout       int64
	toolTimeout       int64
	cancelGrace       int64
	maxAttempts       int64
	backoffBase       int64
	backoffMax        int64
	maxResponseBytes  int64
	maxToolOutput     int64
	promptBytes       int64
	storeFailWrites   []int64
	storeWriteRetries int64
	bug               string
}

var keys = []string{"provider", "tools", "steps", "turns", "first_byte_timeout_ns", "idle_timeout_ns",
	"call_timeout_ns", "tool_timeout_ns", "cancel_grace_ns", "max_attempts", "backoff_base_ns",
	"backoff_max_ns", "max_response_bytes", "max_tool_output_bytes", "prompt_bytes",
	"store_fail_writes", "store_write_retries", "bug"}

func parse(m map[string]any, peers []string) (*config, []hosts.FieldError) {
	r := &kindcfg.Reader{}
	t := kindcfg.Root(r, m)
	t.Keys(keys...)
	c := &config{
		provider:          t.Str("provider", ""),
		tools:             t.StrMap("tools"),
		steps:             t.Strs("steps"),
		firstByteTimeout:  t.Int("first_byte_timeout_ns", 10_000_000_000, 1, maxTime),
		idleTimeout:       t.Int("idle_timeout_ns", 5_000_000_000, 1, maxTime),
		callTimeout:       t.Int("call_timeout_ns", 60_000_000_000, 1, maxTime),
		toolTimeout:       t.Int("tool_timeout_ns", 30_000_000_000, 1, maxTime),
		cancelGrace:       t.Int("cancel_grace_ns", 1_000_000_000, 0, maxTime),
		maxAttempts:       t.Int("max_attempts", 3, 1, 100),
		backoffBase:       t.Int("backoff_base_ns", 500_000_000, 0, maxTime>>20),
		backoffMax:        t.Int("backoff_max_ns", 30_000_000_000, 0, maxTime>>2),
		maxResponseBytes:  t.Int("max_response_bytes", 256<<10, 1, 1<<30),
		maxToolOutput:     t.Int("max_tool_output_bytes", 16<<10, 1, 1<<30),
		promptBytes:       t.Int("prompt_bytes", 512, 0, 1<<20),
		storeFailWrites:   t.Ints("store_fail_writes", 1, maxTime),
		storeWriteRetries: t.Int("store_write_retries", 3, 0, 100),
		bug:               t.OneOf("bug", BugNone, Bugs),
	}
	c.turns = t.Int("turns", int64(max(len(c.steps), 1)), 1, 1_000_000)
	if t.Has("steps") && t.Has("turns") && c.turns != int64(len(c.steps)) {
		r.Add("kind_config.turns", "is %d but steps names %d turns", c.turns, len(c.steps))
	}
	if !t.Has("provider") {
		r.Add("kind_config.provider", "missing (required: the provider peer's id)")
	} else if !slices.Contains(peers, c.provider) {
		r.Add("kind_config.provider", "%q is not a declared peer", c.provider)
	}
	for _, p := range c.tools {
		if !slices.Contains(peers, p.Value) {
			r.Add("kind_config.tools."+p.Key, "%q is not a declared peer", p.Value)
		}
	}
	slices.Sort(c.storeFailWrites)
	return c, r.Errs
}

func (c *config) toolPeer(name string) (string, bool) {
	i := slices.IndexFunc(c.tools, func(p kindcfg.Pair) bool { return p.Key == name })
	if i < 0 {
		return "", false
	}
	return c.tools[i].Value, true
}

// Plan is what an agent's kind_config says of its workflow, for the HTTP
// edge (package edge), which plays the provider and tools around an
// outside agent: the provider peer, the tools by name and the step of
// each turn.
type Plan struct {
	Provider string
	Tools    []kindcfg.Pair // tool name → tool peer, sorted by name
	Steps    []string
}

// ReadPlan reads the plan of a validated agent kind_config.
func ReadPlan(config map[string]any, peers []string) Plan {
	c, _ := parse(config, peers)
	return Plan{Provider: c.provider, Tools: c.tools, Steps: c.steps}
}
