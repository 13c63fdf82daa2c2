package agentcheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
)

// rec is one record of a planted run: at seconds, host, kind tag, type
// and payload.
type rec struct {
	s                  float64
	host, tag, typ, ev string
}

func req(s float64, call string, extra string) rec {
	return rec{s, "model", "provider", "request_received", `{"call":"` + call + `","from":"agent"` + extra + `}`}
}
func returned(s float64, call, id string) rec {
	return rec{s, "model", "provider", "tool_result_received", `{"call":"` + call + `","id":"` + id + `","bytes":10}`}
}
func toolAt(s float64, call, state, by string) rec {
	return rec{s, "shell", "tool", "tool_state", `{"call":"` + call + `","state":"` + state + `","by":"` + by + `"}`}
}
func mutation(s float64, kind string) rec {
	return rec{s, "", "engine", "mutation", `{"kind":"` + kind + `","peer":"agent"}`}
}
func turnEnd(s float64, turn int, outcome string) rec {
	return rec{s, "agent", "agent", "turn_end", fmt.Sprintf(`{"turn":%d,"outcome":%q}`, turn, outcome)}
}

// verdictOf streams the records through the family's judge, as the
// evaluator does, and returns the one assertion's result.
func verdictOf(t *testing.T, p hosts.AssertionParams, recs []rec, endS float64) *hosts.Result {
	t.Helper()
	j := Family.Judge([]hosts.AssertionParams{p})
	for i, r := range recs {
		er := &hosts.EventRec{Line: i + 1, TimeNs: int64(r.s * 1e9), HostID: r.host, KindTag: r.tag, Type: r.typ, Event: []byte(r.ev)}
		er.Read = j.Reads(r.tag, r.typ)
		if er.Read != hosts.ReadWhole {
			er.Event = nil
		}
		if err := j.Observe(er); err != nil {
			t.Fatal(err)
		}
	}
	j.Finish(int64(endS * 1e9))
	return j.Results()[0]
}

// TestEdgeFacts_CatchPlantedFaults: each oracle that judges what the
// edge saw passes a correct agent's records and fails the planted bug's
// (docs/assertions.md, "What the edge saw"), from the provider's, the
// tools' and the engine's records alone.
func TestEdgeFacts_CatchPlantedFaults(t *testing.T) {
	for _, c := range []struct {
		name     string
		p        hosts.AssertionParams
		ok, bug  []rec
		endS     float64
		wantFail string
	}{
		{
			name: "retry_budget/ignore_retry_after", p: RetryBudget{Peer: "agent", MaxAttempts: 3},
			ok:       []rec{req(1, "t1.a1", `,"retry_after_ns":3000000000`), req(4.1, "t1.a2", "")},
			bug:      []rec{req(1, "t1.a1", `,"retry_after_ns":3000000000`), req(1.05, "t1.a2", "")},
			wantFail: "retry-after of 3s",
		},
		{
			name: "retry_budget/sdk_retries_inside", p: RetryBudget{Peer: "agent", MaxAttempts: 3},
			ok:       []rec{req(1, "t1.a1", ""), req(2, "t1.a2", ""), req(3, "t1.a3", ""), req(4, "t2.a1", "")},
			bug:      []rec{req(1, "t1.a1", ""), req(2, "t1.a2", ""), req(3, "t1.a3", ""), req(4, "t1.a4", "")},
			wantFail: "4 requests for turn 1",
		},
		{
			name: "tool_run_once/rerun_after_timeout", p: ToolRunOnce{Peer: "agent"},
			ok:       []rec{toolAt(1, "t1.toolu_1", "started", ""), toolAt(21, "t1.toolu_1", "cancelled", "tool_cancel")},
			bug:      []rec{toolAt(1, "t1.toolu_1", "started", ""), toolAt(21, "t1.toolu_1", "cancelled", "tool_cancel"), toolAt(21.1, "t1.toolu_1", "started", "")},
			wantFail: `"toolu_1" ran twice`,
		},
		{
			name: "tool_run_once/idempotent_tool_may_rerun", p: ToolRunOnce{Peer: "agent"},
			ok: []rec{toolAt(1, "t1.toolu_1", "started", ""),
				{21.1, "files", "tool", "tool_state", `{"call":"t1.toolu_2","state":"started","idempotent":true}`},
				{22.1, "files", "tool", "tool_state", `{"call":"t1.toolu_2","state":"started","idempotent":true}`}},
			bug: []rec{{21.1, "files", "tool", "tool_state", `{"call":"t1.toolu_2","state":"started"}`},
				{22.1, "files", "tool", "tool_state", `{"call":"t1.toolu_2","state":"started"}`}},
			wantFail: "not declared idempotent",
		},
		{
			name: "tool_result_returned/drop_result", p: ToolResultReturned{Peer: "agent"},
			ok:       []rec{req(0, "t1.a1", ""), toolAt(1, "t1.toolu_1", "started", ""), req(2, "t2.a1", ""), returned(2, "t2.a1", "toolu_1")},
			bug:      []rec{req(0, "t1.a1", ""), toolAt(1, "t1.toolu_1", "started", ""), req(2, "t2.a1", "")},
			wantFail: `"toolu_1" ran (turn 1) but its result was never sent back`,
		},
		{
			name: "turn_not_repeated/restart_from_turn_1", p: TurnNotRepeated{Peer: "agent"},
			ok: []rec{req(0, "t1.a1", ""), turnEnd(1, 1, "ok"), req(2, "t2.a1", ""), mutation(3, "PeerKill"), mutation(4, "PeerResurrect"),
				req(5, "t2.a2", "")},
			bug: []rec{req(0, "t1.a1", ""), turnEnd(1, 1, "ok"), req(2, "t2.a1", ""), mutation(3, "PeerKill"), mutation(4, "PeerResurrect"),
				req(5, "t1.a2", "")},
			wantFail: "asks for turn 1 again",
		},
		{
			name: "tool_deadline_kept/hung_tool_left_running", p: ToolDeadlineKept{Peer: "agent", WithinNs: 20e9},
			ok:       []rec{toolAt(1, "t1.toolu_1", "started", ""), toolAt(21.01, "t1.toolu_1", "cancelled", "tool_cancel"), toolAt(22, "t1.toolu_2", "started", ""), toolAt(30, "t1.toolu_2", "cancelled", "episode_end")},
			bug:      []rec{toolAt(1, "t1.toolu_1", "started", ""), toolAt(21.5, "t1.toolu_1", "cancelled", "episode_end")},
			wantFail: "until the episode's end cancelled it",
		},
		{
			name: "tool_deadline_kept/never_ended", p: ToolDeadlineKept{Peer: "agent", WithinNs: 20e9},
			ok:       []rec{toolAt(1, "t1.toolu_1", "started", ""), mutation(3, "PeerKill")},
			bug:      []rec{toolAt(1, "t1.toolu_1", "started", "")},
			endS:     300,
			wantFail: "still running at the end",
		},
		{
			name: "no_work_after_cancel/told_and_went_on", p: NoWorkAfterCancel{Peer: "agent", WithinNs: 2e9},
			ok: []rec{req(0, "t1.a1", ""), mutation(1.52, "Cancel"), {1.6, "", "edge", "control_read", `{"actions":"cancel","next":1}`},
				turnEnd(1.61, 1, "cancelled")},
			bug: []rec{req(0, "t1.a1", ""), mutation(1.52, "Cancel"), {1.6, "", "edge", "control_read", `{"actions":"cancel","next":1}`},
				toolAt(1.68, "t1.toolu_1", "started", "")},
			wantFail: `tool use "toolu_1" started at 1.68s, after the Cancel`,
		},
		{
			name: "no_work_after_cancel/never_listened", p: NoWorkAfterCancel{Peer: "agent", WithinNs: 2e9},
			ok:       []rec{req(0, "t1.a1", ""), mutation(1.52, "Cancel"), toolAt(1.53, "t1.toolu_1", "started", "")},
			bug:      []rec{req(0, "t1.a1", ""), mutation(1.52, "Cancel"), req(4, "t2.a1", "")},
			wantFail: "model request t2.a1 started at 4s",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			end := c.endS
			if end == 0 {
				end = 60
			}
			if r := verdictOf(t, c.p, c.ok, end); r.Outcome != hosts.Pass {
				t.Errorf("correct agent: %v: %s", r.Outcome, r.Reason)
			}
			r := verdictOf(t, c.p, c.bug, end)
			if r.Outcome != hosts.Fail || !strings.Contains(r.Reason, c.wantFail) {
				t.Errorf("planted bug: %v: %s; want Fail naming %q", r.Outcome, r.Reason, c.wantFail)
			}
			if r.Outcome == hosts.Fail && len(r.Evidence) == 0 {
				t.Errorf("failed without evidence")
			}
		})
	}
}

// TestCallTurn: the turn and tool use of the ids the simulated agent
// and the edge both write.
func TestCallTurn(t *testing.T) {
	for id, want := range map[string]int64{"t1.a1": 1, "t12.toolu_3": 12, "toolu_1": 0, "t.a1": 0, "t0.a1": 0, "": 0} {
		if got := callTurn(id); got != want {
			t.Errorf("callTurn(%q) = %d, want %d", id, got, want)
		}
	}
	if useOf("t3.toolu_1") != "toolu_1" || useOf("toolu_1") != "toolu_1" {
		t.Errorf("useOf: %q %q", useOf("t3.toolu_1"), useOf("toolu_1"))
	}
}
