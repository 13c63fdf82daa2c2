package edge

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/detsim/detsim/kinds/agent/llmwire"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/kinds/agent/providerserve"
)

// control is GET /s/SESSION/control[?after=K][&wait=SECONDS]: the
// control events fired so far from the K-th on (cancel, kill, restart,
// each with the schedule time it fired at), waiting up to wait seconds
// (at most 60) for one when there is none yet. A harness polls it (or
// holds it open) and tells its agent, as it would a user's Ctrl-C: the
// Cancel is recorded when it fires, whether or not anyone listens.
func (s *session) control(w http.ResponseWriter, r *http.Request) {
	after, _ := strconv.Atoi(r.URL.Query().Get("after"))
	s.read(after)
	wait, _ := strconv.ParseFloat(r.URL.Query().Get("wait"), 64)
	wait = min(max(wait, 0), 60)
	deadline := time.Now().Add(time.Duration(wait * float64(time.Second)))
	for {
		s.mu.Lock()
		evs := []controlEvent{}
		if after >= 0 && after < len(s.fired) {
			evs = slices.Clone(s.fired[after:])
		}
		n, notify, ended := len(s.fired), s.notify, s.ended
		s.mu.Unlock()
		if len(evs) > 0 || ended || !time.Now().Before(deadline) {
			writeJSON(w, http.StatusOK, map[string]any{"events": evs, "next": n})
			return
		}
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-notify:
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
		t.Stop()
	}
}

// read records that the agent's harness has read the control events
// before n: a poll from event n on (after=n) proves it read the answer
// that carried them. From there an agent that goes on with its work
// ignores what it knows (no_work_after_cancel). Recorded when the next
// poll shows it, not when the answer is written: a request the agent
// sent while that answer was on the wire was sent before it knew, and
// a correct agent's retry crossing the answer failed the oracle under
// load. Each event is recorded read once, however often it is polled,
// so a client polling without end adds no records.
func (s *session) read(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n = min(n, len(s.fired))
	if n <= s.told {
		return
	}
	actions := make([]string, 0, n-s.told)
	for _, ev := range s.fired[s.told:n] {
		actions = append(actions, ev.Action)
	}
	s.told = n
	s.record("", "edge", llmwire.Ev("control_read", llmwire.S("actions", strings.Join(actions, ",")), llmwire.I("next", int64(n))))
}

// Report is what an agent (or its harness) posts to /s/SESSION/report
// when a turn concludes: the agent's claims, which the oracles check
// against what the edge served (docs/agents.md).
type Report struct {
	Turn    int64  `json:"turn"`    // 1-based
	Outcome string `json:"outcome"` // ok, failed, timed_out, cancelled
	Reason  string `json:"reason"`
	// MessageID is the id of the response it accepted (Anthropic msg_…,
	// OpenAI chatcmpl-…), when the outcome is ok.
	MessageID string `json:"message_id"`
	// Text and ToolUses are the content it accepted from that response.
	Text     string `json:"text"`
	ToolUses []struct {
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"tool_uses"`
	// ToolResults are how the turn's tool runs ended as the agent
	// recorded them, and the bytes of output it kept (stored, and sent
	// back to the model).
	ToolResults []struct {
		ID      string `json:"id"`
		Outcome string `json:"outcome"`
		Bytes   int64  `json:"bytes"`
	} `json:"tool_results"`
	Attempts int64 `json:"attempts"`
}

var outcomes = []string{"ok", "failed", "timed_out", "cancelled"}

// report records a turn's conclusion as the agent's claims: the turn's
// end, the accepted response's content (a digest of it), each tool's
// outcome and the output kept, and a settled cancellation. A second
// report for a turn, or one naming a turn, message or tool use the edge
// never served, is refused (the refusal naming each) and its claims
// recorded all the same, for the oracles to judge the lie.
func (s *session) report(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		s.refuse(r.Method+" "+r.URL.Path, "method not allowed")
		jsonError(w, http.StatusMethodNotAllowed, "invalid_request_error", "POST only")
		return
	}
	body, ok := s.readBody(w, r, provider.Format{}, maxReportBytes)
	if !ok {
		return
	}
	var rep Report
	if err := json.Unmarshal(body, &rep); err != nil {
		s.refuse("report", "not a report: "+err.Error())
		jsonError(w, http.StatusBadRequest, "invalid_request_error", "not a report (docs/agents.md): "+err.Error())
		return
	}
	call := strings.TrimPrefix(strings.TrimPrefix(rep.MessageID, "msg_"), "chatcmpl-")
	s.mu.Lock()
	sv, servedCall := s.served[call]
	s.mu.Unlock()
	if servedCall {
		// The fact first: an agent may report before the handler that
		// served it has recorded the response's end.
		select {
		case <-sv.done:
		case <-time.After(5 * time.Second):
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	refuse := func(status int, reason string) {
		s.refuseLocked("report of turn "+strconv.FormatInt(rep.Turn, 10), reason)
		jsonError(w, status, "invalid_request_error", reason)
	}
	switch {
	case s.ended:
		refuse(http.StatusConflict, "the episode has ended")
		return
	case !slices.Contains(outcomes, rep.Outcome):
		refuse(http.StatusBadRequest, fmt.Sprintf("outcome %q: want one of %v", rep.Outcome, outcomes))
		return
	case s.reported[rep.Turn]:
		// Refused, and the claim recorded all the same: a turn that
		// ends twice is the agent's lie for turn_outcome_once to judge.
		if s.refuseLocked("report of turn "+strconv.FormatInt(rep.Turn, 10), fmt.Sprintf("turn %d was reported already", rep.Turn)) {
			s.claimLocked(call, rep)
		}
		jsonError(w, http.StatusConflict, "invalid_request_error", fmt.Sprintf("turn %d was reported already", rep.Turn))
		return
	}
	if wrong := s.unservedLocked(rep, sv, servedCall); len(wrong) > 0 {
		// A report naming what the edge never served is refused, each
		// thing named, and recorded as the agent's claim all the same:
		// the oracles judge what it says it did (no_torn_success an ok
		// turn on a message never served) against what the edge saw.
		reason := strings.Join(wrong, "; ")
		if s.refuseLocked("report of turn "+strconv.FormatInt(rep.Turn, 10), reason) {
			s.reported[rep.Turn] = true
			s.claimLocked(call, rep)
		}
		jsonError(w, http.StatusConflict, "invalid_request_error", reason)
		return
	}
	if rep.Outcome == "ok" && rep.MessageID == "" {
		refuse(http.StatusBadRequest, "an ok turn names the message it accepted (message_id)")
		return
	}
	s.reported[rep.Turn] = true
	s.claimLocked(call, rep)
	writeJSON(w, http.StatusOK, map[string]any{"recorded": true, "turn": rep.Turn})
}

// unservedLocked names each thing report rep names that the edge never
// served: its turn (no request for it), its message (never served, or
// served for another turn), each tool use and tool result id no
// response of the episode asked for. Called with s.mu held.
func (s *session) unservedLocked(rep Report, sv served, servedCall bool) []string {
	var wrong []string
	if s.turns[rep.Turn] == 0 {
		wrong = append(wrong, fmt.Sprintf("turn %d never happened: no request of this episode was for it", rep.Turn))
	}
	switch {
	case rep.MessageID != "" && !servedCall:
		wrong = append(wrong, fmt.Sprintf("message %q was never served in this episode", rep.MessageID))
	case rep.MessageID != "" && sv.turn != rep.Turn:
		wrong = append(wrong, fmt.Sprintf("message %q answered turn %d, not turn %d", rep.MessageID, sv.turn, rep.Turn))
	}
	named := map[string]bool{}
	for _, u := range rep.ToolUses {
		named[u.ID] = true
	}
	for _, tr := range rep.ToolResults {
		named[tr.ID] = true
	}
	for _, id := range slices.Sorted(maps.Keys(named)) {
		if _, ok := s.uses[id]; !ok {
			wrong = append(wrong, fmt.Sprintf("tool use %q was never served in this episode", id))
		}
	}
	return wrong
}

// claimLocked records what report rep claims: the model call's outcome
// and content, its tool results and the turn's end. Called with s.mu
// held.
func (s *session) claimLocked(call string, rep Report) {
	agent := s.e.agentID
	if rep.MessageID != "" {
		c := llmwire.Content{Text: rep.Text}
		for _, u := range rep.ToolUses {
			in := []byte(u.Input)
			if len(in) == 0 {
				in = []byte("{}")
			}
			c.Tools = append(c.Tools, llmwire.ToolUse{ID: u.ID, Name: u.Name, Input: in})
		}
		content := ""
		if rep.Outcome == "ok" {
			content = c.Digest()
		}
		s.record(agent, "agent", outcomeEvent("model_call", call, rep.Outcome, reasonOr(rep.Reason), content, 0))
	}
	for _, tr := range rep.ToolResults {
		id := "t" + strconv.FormatInt(s.useTurn(tr.ID, rep.Turn), 10) + "." + tr.ID
		s.record(agent, "agent", outcomeEvent("tool_call", id, tr.Outcome, "reported", "", tr.Bytes))
		s.record(agent, "agent", llmwire.Ev("tool_result_included", llmwire.S("id", id), llmwire.I("bytes", tr.Bytes), llmwire.S("call", "")))
	}
	s.record(agent, "agent", llmwire.Ev("turn_end", llmwire.I("turn", rep.Turn), llmwire.S("outcome", rep.Outcome), llmwire.I("attempts", rep.Attempts)))
	if rep.Outcome == "cancelled" {
		s.record(agent, "agent", llmwire.Ev("cancel_settled", llmwire.I("turn", rep.Turn), llmwire.S("episode", "cancelled")))
	}
}

// useTurn is the turn whose response asked for tool use id, else turn.
// Called with s.mu held.
func (s *session) useTurn(id string, turn int64) int64 {
	if t, ok := s.uses[id]; ok {
		return t
	}
	return turn
}

func reasonOr(r string) string {
	if r == "" {
		return "reported"
	}
	return r
}

func outcomeEvent(effect, id, outcome, reason, content string, n int64) *llmwire.Event {
	return llmwire.Ev("effect_outcome", llmwire.S("effect", effect), llmwire.S("id", id), llmwire.S("outcome", outcome),
		llmwire.S("reason", reason), llmwire.B("content_delivered", content != ""), llmwire.I("frames", 0),
		llmwire.I("bytes", n), llmwire.I("retry_after_ns", 0), llmwire.S("content", content))
}

// reportEnd records the episode's end as the agent posts it to
// /s/SESSION/end ({"outcome": ...}, optional).
// The body is read under the edge's body deadlines, as every other is:
// one that stops coming ends the episode without an outcome.
func (s *session) reportEnd(w http.ResponseWriter, r *http.Request) {
	var end struct {
		Outcome string `json:"outcome"`
	}
	_ = json.NewDecoder(providerserve.BodyReader(w, r, 4<<10, s.e.opts.BodyIdle, s.e.opts.BodyRead)).Decode(&end)
	if !slices.Contains(outcomes, end.Outcome) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	done := int64(0)
	for t := range s.reported {
		done = max(done, t)
	}
	s.record(s.e.agentID, "agent", llmwire.Ev("episode_end", llmwire.S("outcome", end.Outcome), llmwire.S("reason", "reported"), llmwire.I("turns_done", done)))
}
