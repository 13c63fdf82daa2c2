package swimhost

import (
	"strconv"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/swim"
)

// watches are the values of a swim host a viewer may watch: its view of
// a member (state, incarnation) and its own incarnation.
var watches = []hosts.Watch{
	{Field: "state", Type: tTransition, Host: "observer", Member: "subject", Value: "to",
		Doc: "the host's view of the member: alive, suspect or dead"},
	{Field: "incarnation", Type: tTransition, Host: "observer", Member: "subject", Value: "incarnation",
		Doc: "the incarnation the host holds for the member"},
	{Field: "incarnation", Type: tBump, Value: "new",
		Doc: "the host's own incarnation (no member=)"},
}

// series are what the page charts of a swim run: what grows in the
// gossip flap (message sizes and the updates piled onto each, against
// the size assertion's threshold), what it causes (suspicions,
// refutations, incarnations) and what the links carry against their
// bandwidth.
var series = []hosts.Series{
	{ID: "swim_bytes", Title: "message size", Unit: "B", Types: []string{tSent}, Field: "bytes", Agg: hosts.AggMaxMedian,
		Limit: &hosts.Limit{Assertion: "message_size_bounded", Param: "max_bytes"},
		Doc:   "largest and median message a host sent in each interval; the dashed line is message_size_bounded's max_bytes"},
	{ID: "swim_updates", Title: "piggybacked updates", Types: []string{tSent}, Field: "updates", Agg: hosts.AggMaxMedian,
		Doc: "most and median membership updates piggybacked on one message"},
	{ID: "swim_suspicions", Title: "suspicions", Types: []string{tTransition}, Where: [2]string{"to", "suspect"}, Host: "observer", Agg: hosts.AggCount,
		Doc: "views turned suspect in each interval (by the observer)"},
	{ID: "swim_refutations", Title: "refutations", Types: []string{tBump}, Agg: hosts.AggCount,
		Doc: "times a host raised its own incarnation to refute an accusation"},
	{ID: "swim_incarnation", Title: "incarnation", Types: []string{tBump}, Field: "new", Agg: hosts.AggLast,
		Doc: "the host's own incarnation"},
	{ID: "swim_queue", Title: "broadcast queue", Types: []string{tQueue}, Field: "depth", Agg: hosts.AggLast,
		Doc: "updates waiting in the host's broadcast queue: its depth after every change (broadcast_queue records)"},
	{ID: "swim_link_bytes", Title: "link bytes per second", Unit: "B/s", Types: []string{tSent}, Field: "bytes", Peer: "peer", Agg: hosts.AggRate, Bandwidth: true,
		Doc: "bytes sent on each directed link per second of virtual time; the dashed line is the link's bandwidth"},
}

// marks say how the page labels a swim host's probes and incarnation
// bumps on its lane: a probe's target, sequence number and mode; the
// routine ones (a direct probe, an ack) only where there is room. The
// stepper's event log reads a state transition the way the design
// sketch shows it.
var marks = []hosts.Mark{
	{Type: tProbeSent, High: func(p hosts.Payload) bool { return p.Str("mode") != "direct" },
		Label: func(p hosts.Payload) string {
			l := "probe " + p.Str("target") + " #" + seqText(p) + " " + p.Str("mode")
			if via := p.Strs("via"); len(via) > 0 {
				l += " via " + strings.Join(via, ",")
			}
			return l
		}},
	{Type: tAcked, High: func(hosts.Payload) bool { return false },
		Label: func(p hosts.Payload) string {
			return "ack from " + p.Str("target") + " #" + seqText(p) + " " + p.Str("mode")
		}},
	{Type: tTimedOut,
		Label: func(p hosts.Payload) string {
			return "probe timeout " + p.Str("target") + " #" + seqText(p) + " " + p.Str("mode")
		}},
	{Type: tBump,
		Label: func(p hosts.Payload) string {
			return "incarnation " + strconv.FormatInt(p.Num("old"), 10) + "→" + strconv.FormatInt(p.Num("new"), 10) + " (" + p.Str("cause") + ")"
		}},
	{Type: tTransition,
		Gist: func(host string, p hosts.Payload) string {
			s := p.Str("subject") + " " + p.Str("from") + "→" + p.Str("to") + " inc " + p.Str("incarnation") + " (" + p.Str("reason") + ")"
			if o := p.Str("observer"); o != "" && o != host {
				s = "by " + o + ": " + s
			}
			return s
		}},
}

// seqText is a probe's sequence number, "?" when the record has none.
func seqText(p hosts.Payload) string {
	if !p.Has("seq") {
		return "?"
	}
	return strconv.FormatInt(p.Num("seq"), 10)
}

// views: every swim host holds a view (state and incarnation) of every
// member it knows, changed by its state_transition records and read from
// its snapshot's members.
var views = &hosts.Views{
	Title: "membership",
	Type:  tTransition, Observer: "observer", Subject: "subject", State: "to", Version: "incarnation", Reason: "reason",
	VersionShort: "inc",
	States: []hosts.ViewState{
		{Name: swim.Alive.String(), Letter: 'A', Tone: hosts.ToneGood},
		{Name: swim.Suspect.String(), Letter: 'S', Tone: hosts.ToneWarn},
		{Name: swim.Dead.String(), Letter: 'D', Tone: hosts.ToneBad},
	},
	Initial: "initial",
	// A refutation turns a view back to alive: news worth a mark.
	Noted: func(reason string) bool { return reason == "refuted" },
	Of:    viewsOf,
}

// viewsOf reads the members of a swim snapshot (kinds/swim/swim/snapshot.go).
func viewsOf(snapshot []byte) (string, []hosts.View, bool) {
	s, ok := readSnap(snapshot)
	if !ok {
		return "", nil, false
	}
	out := make([]hosts.View, len(s.Members))
	for i, m := range s.Members {
		out[i] = hosts.View{Member: m.ID, State: m.State, Version: m.Incarnation}
	}
	return s.Self, out, true
}
