package rafthost

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/pane"
	"github.com/detsim/detsim/internal/vtime"
)

// drawPane is the kind's pane.Drawer: the selected raft host as etcd's
// raft.Status shows it — term, role, leader, commit and applied, on a
// leader each follower's progress with its inflight appends, and the
// log's tail. What the last step changed is marked; `w` on a line
// searches back for the record that brought it.
func drawPane(in pane.Input) []pane.Line {
	v, ok := readSnapshot(in.Snapshot)
	if !ok {
		return nil
	}
	was, hadBefore := readSnapshot(in.Before)
	changed := func(now, before string) hosts.Tone {
		if hadBefore && now != before {
			return hosts.ToneChanged
		}
		return hosts.TonePlain
	}
	u := func(n uint64) string { return strconv.FormatUint(n, 10) }
	var out []pane.Line
	if v.Dead != "" {
		l := pane.Cells(pane.Cell{Text: "panicked: " + v.Dead, Tone: hosts.ToneBad})
		l.Find, l.Follow = "type="+tPanic+" host="+v.ID, "the panic"
		return append(out, l)
	}
	if v.Role == "down" {
		return append(out, pane.Cells(pane.Cell{Text: "down", Tone: hosts.ToneDim}))
	}
	roleTone := hosts.TonePlain
	switch v.Role {
	case "leader":
		roleTone = hosts.ToneGood
	case "candidate", "pre_candidate":
		roleTone = hosts.ToneWarn
	}
	if t := changed(v.Role, was.Role); t == hosts.ToneChanged {
		roleTone = t
	}
	// Short lines, most telling first: the stepper gives a host pane a
	// third of the screen's width and a dozen lines at 120×40.
	l := pane.Cells(pane.Cell{Text: v.Role, Tone: roleTone},
		pane.Text("  term "), pane.Cell{Text: u(v.Term), Tone: changed(u(v.Term), u(was.Term))})
	l.Find, l.Follow = "type="+tRoleChange+" host="+v.ID, "the role change"
	out = append(out, l)
	l = pane.Cells(pane.Text("lead "), pane.Cell{Text: orNone(v.Lead), Tone: changed(v.Lead, was.Lead)},
		pane.Text("  vote "), pane.Cell{Text: orNone(v.Vote), Tone: changed(v.Vote, was.Vote)})
	l.Find, l.Follow = "type="+tLeaderChange+" host="+v.ID, "the leader change"
	out = append(out, l)
	l = pane.Cells(pane.Text("commit "), pane.Cell{Text: u(v.Commit), Tone: changed(u(v.Commit), u(was.Commit))},
		pane.Text("  applied "), pane.Cell{Text: u(v.Applied), Tone: changed(u(v.Applied), u(was.Applied))})
	l.Find, l.Follow = "type="+tApply+" host="+v.ID, "the last apply"
	out = append(out, l)
	if l, ok := electionLine(v.Role, in.Inspect); ok {
		out = append(out, l)
	}
	out = append(out, pane.Cells(pane.Text("log "+u(v.FirstIndex)+"–"),
		pane.Cell{Text: u(v.LastIndex), Tone: changed(u(v.LastIndex), u(was.LastIndex))},
		pane.Text("  keys "+u(v.Keys))))
	if w := v.Write; w != nil {
		out = append(out, pane.Cells(pane.Cell{
			Text: "fsync in flight: " + strconv.Itoa(w.Entries) + " entries, " + vtime.Seconds(w.FsyncNs),
			Tone: hosts.ToneWarn}))
	}
	if len(v.Progress) > 0 {
		out = append(out, pane.Cells(pane.Cell{Text: "peer match next state inflight", Tone: hosts.ToneDim}))
	}
	for _, p := range v.Progress {
		tone := hosts.TonePlain
		switch {
		case !p.Active:
			tone = hosts.ToneBad
		case p.Paused || p.State != "StateReplicate":
			tone = hosts.ToneWarn
		}
		text := p.Peer + " " + u(p.Match) + " " + u(p.Next) + " " + strings.ToLower(strings.TrimPrefix(p.State, "State")) + " " + strconv.Itoa(p.Inflight)
		if p.Paused {
			text += " paused"
		}
		if !p.Active {
			text += " inactive"
		}
		l := pane.Cells(pane.Cell{Text: text, Tone: tone})
		l.Find, l.Follow = "type="+tSent+" host="+v.ID+" peer="+p.Peer, "the last message to "+p.Peer
		out = append(out, l)
	}
	if len(v.LogTail) > 0 {
		out = append(out, pane.Cells(pane.Cell{Text: "log tail", Tone: hosts.ToneDim}))
	}
	// Newest first, so the entries a narrow pane keeps are the latest.
	for i := len(v.LogTail) - 1; i >= 0; i-- {
		e := v.LogTail[i]
		mark := "  "
		tone := hosts.TonePlain
		if e.Index <= v.Commit {
			mark = "✓ "
		}
		if hadBefore && e.Index > was.LastIndex {
			tone = hosts.ToneChanged
		}
		text := mark + u(e.Index) + " t" + u(e.Term) + " " + e.Op
		if e.Key != "" {
			text += " " + e.Key + " (" + e.Req + ")"
		}
		l := pane.Cells(pane.Cell{Text: text, Tone: tone})
		l.Find, l.Follow = "type="+tLogAppend+" host="+v.ID, "the append"
		out = append(out, l)
	}
	return out
}

// electionLine is the member's election clock from its Inspect
// (inspect.go): a follower's or candidate's ticks without word from a
// leader against the randomized timeout raft drew, which it campaigns
// at; a leader's ticks against the plain election timeout, at which it
// checks that a quorum is still active (CheckQuorum) and resets.
func electionLine(role string, inspect []byte) (pane.Line, bool) {
	var in struct {
		Election *struct {
			Elapsed int64 `json:"elapsed"`
			Timeout int64 `json:"timeout"`
			Base    int64 `json:"base"`
		} `json:"election"`
	}
	if len(inspect) == 0 || json.Unmarshal(inspect, &in) != nil || in.Election == nil {
		return pane.Line{}, false
	}
	e := in.Election
	i := func(n int64) string { return strconv.FormatInt(n, 10) }
	if role == "leader" {
		return pane.Cells(pane.Text("quorum check " + i(e.Elapsed) + "/" + i(e.Base) + " ticks")), true
	}
	tone := hosts.TonePlain
	// The last quarter before a campaign: the member is about to stand.
	if 4*e.Elapsed >= 3*e.Timeout {
		tone = hosts.ToneWarn
	}
	return pane.Cells(pane.Text("election "), pane.Cell{Text: i(e.Elapsed) + "/" + i(e.Timeout), Tone: tone},
		pane.Text(" ticks (base "+i(e.Base)+")")), true
}
