package rafthost

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	etcd "github.com/detsim/detsim/kinds/raft/rafthost/raftseam"

	"github.com/detsim/detsim/internal/jsonw"
)

// tailLen is how many of the log's last entries a snapshot lists.
const tailLen = 8

// appendSnapshot writes the host's state (docs/raft.md, "Snapshots"):
//
//	{id, role, term, vote, lead, commit, applied, first_index,
//	 last_index, keys, write: {entries, fsync_ns} | null,
//	 log_tail: [{index, term, op, req, key}],
//	 progress: [{peer, match, next, state, inflight, paused, active}] (a leader's),
//	 dead: "panic text" (only after a panic)}
func (h *host) appendSnapshot(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = jsonw.AppendString(b, h.id)
	if h.node == nil {
		b = append(b, `,"role":"down"`...)
		if h.dead != "" {
			b = jsonw.AppendString(append(b, `,"dead":`...), h.dead)
		}
		return append(b, '}')
	}
	st := h.node.BasicStatus()
	b = jsonw.AppendStringField(b, "role", roleName(st.RaftState))
	b = jsonw.AppendUintField(b, "term", st.GetTerm())
	b = jsonw.AppendStringField(b, "vote", h.peer(st.GetVote()))
	b = jsonw.AppendStringField(b, "lead", h.peer(st.Lead))
	b = jsonw.AppendUintField(b, "commit", st.GetCommit())
	b = jsonw.AppendUintField(b, "applied", h.d.applied)
	b = jsonw.AppendUintField(b, "first_index", h.d.base+1)
	b = jsonw.AppendUintField(b, "last_index", h.d.last())
	b = jsonw.AppendUintField(b, "keys", uint64(len(h.d.kv)))
	if w := h.write; w != nil {
		b = append(b, `,"write":{"entries":`...)
		b = strconv.AppendInt(b, int64(len(w.rd.Entries)), 10)
		b = jsonw.AppendUintField(b, "fsync_ns", uint64(w.fsyncNs))
		b = append(b, '}')
	} else {
		b = append(b, `,"write":null`...)
	}
	b = append(b, `,"log_tail":[`...)
	lo := max(h.d.base+1, h.d.last()+1-min(h.d.last(), tailLen))
	if ents, err := h.d.ms.Entries(lo, h.d.last()+1, noLimit); err == nil {
		for i, e := range ents {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"index":`...)
			b = strconv.AppendUint(b, e.GetIndex(), 10)
			b = jsonw.AppendUintField(b, "term", e.GetTerm())
			op, req, key := opNoop, "", ""
			if len(e.GetData()) > 0 {
				op = opConf
				if r, k, _, ok := decodeCommand(e.GetData()); ok && e.GetType() == 0 {
					op, req, key = opPut, r, k
				}
			}
			b = jsonw.AppendStringField(b, "op", op)
			b = jsonw.AppendStringField(b, "req", req)
			b = jsonw.AppendStringField(b, "key", key)
			b = append(b, '}')
		}
	}
	b = append(b, `],"progress":[`...)
	if st.RaftState == etcd.StateLeader {
		// Status, not WithProgress: only Status copies the inflights.
		prs := h.node.Status().Progress
		first := true
		for _, id := range slices.Sorted(maps.Keys(prs)) {
			if id == h.self {
				continue
			}
			pr := prs[id]
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, `{"peer":`...)
			b = jsonw.AppendString(b, h.peer(id))
			b = jsonw.AppendUintField(b, "match", pr.Match)
			b = jsonw.AppendUintField(b, "next", pr.Next)
			b = jsonw.AppendStringField(b, "state", pr.State.String())
			b = jsonw.AppendUintField(b, "inflight", uint64(pr.Inflights.Count()))
			b = jsonw.AppendBoolField(b, "paused", pr.MsgAppFlowPaused)
			b = jsonw.AppendBoolField(b, "active", pr.RecentActive)
			b = append(b, '}')
		}
	}
	b = append(b, ']')
	if h.dead != "" {
		b = jsonw.AppendStringField(b, "dead", h.dead)
	}
	return append(b, '}')
}

const noLimit = 1<<64 - 1

// snapshotView is what Summary and the pane read of a snapshot.
type snapshotView struct {
	ID         string `json:"id"`
	Role       string `json:"role"`
	Term       uint64 `json:"term"`
	Vote       string `json:"vote"`
	Lead       string `json:"lead"`
	Commit     uint64 `json:"commit"`
	Applied    uint64 `json:"applied"`
	FirstIndex uint64 `json:"first_index"`
	LastIndex  uint64 `json:"last_index"`
	Keys       uint64 `json:"keys"`
	Write      *struct {
		Entries int   `json:"entries"`
		FsyncNs int64 `json:"fsync_ns"`
	} `json:"write"`
	LogTail []struct {
		Index uint64 `json:"index"`
		Term  uint64 `json:"term"`
		Op    string `json:"op"`
		Req   string `json:"req"`
		Key   string `json:"key"`
	} `json:"log_tail"`
	Progress []struct {
		Peer     string `json:"peer"`
		Match    uint64 `json:"match"`
		Next     uint64 `json:"next"`
		State    string `json:"state"`
		Inflight int    `json:"inflight"`
		Paused   bool   `json:"paused"`
		Active   bool   `json:"active"`
	} `json:"progress"`
	Dead string `json:"dead"`
}

func readSnapshot(b []byte) (snapshotView, bool) {
	var v snapshotView
	if json.Unmarshal(b, &v) != nil || v.ID == "" {
		return snapshotView{}, false
	}
	return v, true
}

// summary is the kind's pane.Summarizer: one line about a host.
func summary(snapshot []byte) string {
	v, ok := readSnapshot(snapshot)
	switch {
	case !ok:
		return ""
	case v.Dead != "":
		return "panicked: " + v.Dead
	case v.Role == "down":
		return "down"
	}
	s := v.Role + " term " + strconv.FormatUint(v.Term, 10)
	if v.Lead != "" && v.Role != "leader" {
		s += " lead " + v.Lead
	}
	s += " commit " + strconv.FormatUint(v.Commit, 10) + " applied " + strconv.FormatUint(v.Applied, 10) +
		" last " + strconv.FormatUint(v.LastIndex, 10)
	if v.Write != nil {
		s += " (fsync in flight)"
	}
	return s
}
