package rafthost

import (
	"strconv"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/vtime"
)

// watches are the values of a raft host a viewer may watch: what etcd's
// raft.Status reports and an operator asks first (who leads, in which
// term, how far the host has applied).
var watches = []hosts.Watch{
	{Field: "role", Type: tRoleChange, Value: "to", Doc: "the host's raft state: follower, pre_candidate, candidate or leader"},
	{Field: "lead", Type: tLeaderChange, Value: "lead", Doc: "the leader the host follows (\"\" for none)"},
	{Field: "term", Type: tHardState, Value: "term", Doc: "the host's durable term"},
	{Field: "vote", Type: tHardState, Value: "vote", Doc: "the candidate the host voted for in its term"},
	{Field: "applied", Type: tApply, Value: "index", Doc: "the last log index the host applied to its key-value store"},
}

// series are what the page charts of a raft run: progress (applied
// index, term), what disturbs it (elections, dropped proposals, slow
// fsyncs) and what the links carry against their bandwidth.
var series = []hosts.Series{
	{ID: "raft_applied", Title: "applied index", Types: []string{tApply}, Field: "index", Agg: hosts.AggLast,
		Doc: "the last log index each host applied"},
	{ID: "raft_commit", Title: "commit index", Types: []string{tSent}, Field: "commit", Agg: hosts.AggLast,
		Doc: "the commit index each host last sent: a leader's appends and heartbeats carry it to the followers, whose applied index follows"},
	{ID: "raft_term", Title: "term", Types: []string{tHardState}, Field: "term", Agg: hosts.AggLast,
		Doc: "each host's durable term: a step is an election"},
	{ID: "raft_campaigns", Title: "campaigns", Types: []string{tRoleChange}, Where: [2]string{"to", "candidate"}, Agg: hosts.AggCount,
		Doc: "times a host became a candidate (after a pre-vote it won, with PreVote)"},
	{ID: "raft_dropped", Title: "dropped proposals", Types: []string{tPropDropped}, Agg: hosts.AggCount,
		Doc: "client puts raft refused at the host (no leader known, or a leader transfer)"},
	{ID: "raft_fsync", Title: "fsync", Unit: "ns", Types: []string{tDiskWrite}, Field: "fsync_ns", Agg: hosts.AggMaxMedian,
		Doc: "longest and median durable write, on a slow disk"},
	{ID: "raft_msg_bytes", Title: "message size", Unit: "B", Types: []string{tSent}, Field: "bytes", Agg: hosts.AggMaxMedian,
		Doc: "largest and median raftpb message a host sent (max_size_per_msg bounds an append's entries)"},
	{ID: "raft_link_bytes", Title: "link bytes per second", Unit: "B/s", Types: []string{tSent}, Field: "bytes", Peer: "peer", Agg: hosts.AggRate, Bandwidth: true,
		Doc: "bytes sent on each directed link per second of virtual time; the dashed line is the link's bandwidth"},
}

// band shades each host's lane on the page by its raft role, from each
// role_change to the next (docs/raft.md, "Viewers").
// A member starts every life a follower (etcd's raft.newRaft), so
// node_start resets it.
var band = &hosts.Band{Title: "raft role", Type: tRoleChange, Value: "to", Initial: "follower", Reset: tNodeStart, States: []hosts.ViewState{
	{Name: "follower", Tone: hosts.TonePlain},
	{Name: "pre_candidate", Tone: hosts.ToneDim},
	{Name: "candidate", Tone: hosts.ToneWarn},
	{Name: "leader", Tone: hosts.ToneGood},
}}

// clientHistory is the clients' history (docs/raft.md, "Clients"): the page
// draws each client's operations and the window the linearizable
// oracle's Fail verdict cites.
var clientHistory = &hosts.History{
	Invoke: tClientInvoke, Return: tClientReturn, Client: "client", Req: "req",
	Op: "op", Key: "key", Value: "value", Result: "result", Answer: "value",
	OK: resultOK, Unknown: resultUnknown, Assertion: "linearizable",
}

// marks say how the page labels a raft host's records: elections,
// leaders, restarts, panics and slow writes at every level of detail;
// appends, applies, proposals and messages only where there is room.
var marks = []hosts.Mark{
	// The clients' history (docs/raft.md, "Clients"): an answer other
	// than ok and a retried ReadIndex round at every level of detail.
	{Type: tClientInvoke, High: routine, Label: func(p hosts.Payload) string {
		return p.Str("op") + " " + p.Str("key") + " " + p.Str("req")
	}, Gist: func(_ string, p hosts.Payload) string {
		return p.Str("client") + " " + p.Str("op") + " " + p.Str("key") + " (" + p.Str("req") + ")"
	}},
	{Type: tClientReturn, High: func(p hosts.Payload) bool { return p.Str("result") != resultOK }, Label: func(p hosts.Payload) string {
		return p.Str("req") + " " + p.Str("result") + reasonText(p)
	}, Gist: func(_ string, p hosts.Payload) string {
		l := p.Str("client") + " " + p.Str("req") + " " + p.Str("result") + reasonText(p)
		if p.Has("value") {
			l += " → " + strconv.Quote(p.Str("value"))
		}
		return l
	}},
	{Type: tReadIndex, High: func(p hosts.Payload) bool { return p.Str("retry") == "true" }, Label: func(p hosts.Payload) string {
		if p.Str("retry") == "true" {
			return "ReadIndex #" + p.Str("id") + " retried"
		}
		return "ReadIndex #" + p.Str("id")
	}},
	{Type: tReadState, High: routine, Label: func(p hosts.Payload) string {
		return "read index " + p.Str("index") + " for #" + p.Str("id")
	}},
	{Type: tNodeStart, Label: func(p hosts.Payload) string {
		return "start, " + p.Str("disk") + " disk, term " + p.Str("term")
	}},
	{Type: tRoleChange, Label: func(p hosts.Payload) string {
		return p.Str("to") + " t" + p.Str("term")
	}, Gist: func(_ string, p hosts.Payload) string {
		return p.Str("from") + "→" + p.Str("to") + " term " + p.Str("term") + leadText(p.Str("lead"))
	}},
	{Type: tLeaderChange, Label: func(p hosts.Payload) string {
		return "lead " + orNone(p.Str("lead")) + " t" + p.Str("term")
	}, Gist: func(_ string, p hosts.Payload) string {
		return "lead " + orNone(p.Str("prev")) + "→" + orNone(p.Str("lead")) + " term " + p.Str("term")
	}},
	{Type: tVote, Label: func(p hosts.Payload) string {
		return voteText(p) + " " + p.Str("candidate") + " t" + p.Str("term")
	}, Gist: func(_ string, p hosts.Payload) string {
		return voteText(p) + " for " + p.Str("candidate") + " in term " + p.Str("term")
	}},
	{Type: tHardState, High: routine, Label: func(p hosts.Payload) string {
		return "term " + p.Str("term") + " vote " + orNone(p.Str("vote"))
	}},
	{Type: tLogAppend, High: func(p hosts.Payload) bool { return p.Str("truncated") == "true" },
		Label: func(p hosts.Payload) string {
			l := "append " + p.Str("first") + "–" + p.Str("last")
			if p.Str("truncated") == "true" {
				l += " (truncated)"
			}
			return l
		},
		Gist: func(_ string, p hosts.Payload) string {
			l := "entries " + p.Str("first") + "–" + p.Str("last")
			if p.Str("truncated") == "true" {
				l += ", replacing a suffix"
			}
			return l
		}},
	{Type: tApply, High: routine, Label: func(p hosts.Payload) string {
		return "apply " + p.Str("index") + " " + p.Str("op") + " " + p.Str("key")
	}, Gist: func(_ string, p hosts.Payload) string {
		s := "index " + p.Str("index") + " term " + p.Str("term") + " " + p.Str("op")
		if k := p.Str("key"); k != "" {
			s += " " + k + "=" + p.Str("value") + " (" + p.Str("req") + ")"
		}
		return s
	}},
	{Type: tProposal, High: routine, Label: func(p hosts.Payload) string {
		return "put " + p.Str("key") + " → " + p.Str("to")
	}},
	{Type: tPropDropped, Label: func(p hosts.Payload) string {
		return "dropped " + p.Str("req") + " (" + p.Str("reason") + ")"
	}},
	{Type: tDiskWrite, High: func(p hosts.Payload) bool { return p.Num("ticks_missed") > 0 },
		Label: func(p hosts.Payload) string {
			l := "fsync " + vtime.Seconds(p.Num("fsync_ns"))
			if n := p.Num("ticks_missed"); n > 0 {
				l += ", " + strconv.FormatInt(n, 10) + " ticks missed"
			}
			return l
		}},
	{Type: tSnapTaken, Label: func(p hosts.Payload) string { return "snapshot at " + p.Str("index") }},
	{Type: tSnapInstalled, Label: func(p hosts.Payload) string {
		return "snapshot " + p.Str("index") + " from " + p.Str("from")
	}},
	{Type: tPanic, Label: func(p hosts.Payload) string { return "PANIC " + p.Str("panic") }},
	{Type: tSent, High: routine, Label: msgLabel, Gist: msgGist},
	{Type: tReceived, High: routine, Label: msgLabel, Gist: msgGist},
}

func routine(hosts.Payload) bool { return false }

func msgLabel(p hosts.Payload) string {
	l := p.Str("message") + " " + p.Str("peer")
	if p.Has("term") {
		l += " t" + p.Str("term")
	}
	return l
}

func msgGist(_ string, p hosts.Payload) string {
	s := p.Str("message") + " " + p.Str("peer")
	if id := p.Str("id"); id != "" {
		s += " (" + id + ")"
	}
	for _, k := range [...]string{"term", "index", "log_term", "commit", "entries"} {
		if p.Has(k) {
			s += " " + k + "=" + p.Str(k)
		}
	}
	if p.Has("reject") {
		s += " rejected"
	}
	return s + " " + p.Str("bytes") + " B"
}

func voteText(p hosts.Payload) string {
	if p.Str("pre") == "true" {
		return "pre-vote"
	}
	return "vote"
}

func leadText(lead string) string {
	if lead == "" {
		return ""
	}
	return " lead " + lead
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// reasonText is a client answer's reason, when it has one.
func reasonText(p hosts.Payload) string {
	if r := p.Str("reason"); r != "" {
		return " (" + r + ")"
	}
	return ""
}
