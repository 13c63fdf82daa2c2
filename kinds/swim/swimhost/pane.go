package swimhost

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/pane"
	"github.com/detsim/detsim/internal/natsort"
	"github.com/detsim/detsim/internal/numfmt"
	"github.com/detsim/detsim/kinds/swim/swim"
)

// snap is the part of a swim host's snapshot the stepper's pane shows
// (kinds/swim/swim/snapshot.go writes it; docs/swim.md describes it).
type snap struct {
	Self           string   `json:"self"`
	Incarnation    uint64   `json:"incarnation"`
	Health         int64    `json:"health"`
	HealthMax      int64    `json:"health_max"`
	Gossip         string   `json:"gossip"`
	Joined         bool     `json:"joined"`
	Members        []member `json:"members"`
	BroadcastQueue struct {
		Depth     int64 `json:"depth"`
		Bytes     int64 `json:"bytes"`
		Oversized int64 `json:"oversized"`
	} `json:"broadcast_queue"`
	Probe struct {
		Round       uint64 `json:"round"`
		Position    int64  `json:"position"`
		RoundLength int64  `json:"round_length"`
		NextProbeNs int64  `json:"next_probe_ns"`
		Target      string `json:"target"`
		Seq         uint64 `json:"seq"`
	} `json:"probe"`
	Counters json.RawMessage `json:"counters"`
}

type member struct {
	ID                  string   `json:"id"`
	State               string   `json:"state"`
	Incarnation         uint64   `json:"incarnation"`
	SuspicionDeadlineNs *int64   `json:"suspicion_deadline_ns"`
	Confirmations       int64    `json:"confirmations"`
	Accusers            []string `json:"accusers"`
}

// inspected is what a swim host tells beyond its snapshot (Inspect):
// who accused each suspect or dead member, and the broadcast queue's
// entries.
type inspected struct {
	Accused []struct {
		Member  string `json:"member"`
		Accuser string `json:"accuser"`
	} `json:"accused"`
	Queue struct {
		Total   int `json:"total"`
		Entries []struct {
			Member      string `json:"member"`
			State       string `json:"state"`
			Incarnation uint64 `json:"incarnation"`
			Accuser     string `json:"accuser"`
			Transmits   int    `json:"transmits"`
			Bytes       int    `json:"bytes"`
		} `json:"entries"`
	} `json:"broadcast_queue"`
}

// accuser is who accused m, if the host holds it suspect or dead.
func (in *inspected) accuser(m string) (string, bool) {
	if in == nil {
		return "", false
	}
	for _, a := range in.Accused {
		if a.Member == m {
			return a.Accuser, true
		}
	}
	return "", false
}

func readSnap(b []byte) (*snap, bool) {
	if !bytes.Contains(b, []byte(`"members"`)) {
		return nil, false
	}
	var s snap
	if json.Unmarshal(b, &s) != nil || s.Self == "" || s.Members == nil {
		return nil, false
	}
	return &s, true
}

// maxLabel bounds the member column, as the stepper's matrix does.
const maxLabel = 10

// drawPane is the stepper's host pane of a swim host: its incarnation, local
// health, broadcast queue and probe, then every member with its
// suspicion deadline and, for a suspect or dead one, its accuser in full
// (the key fact of a flap: `w` on it goes to the record where the
// accusation arrived, `W` explains it), then the broadcast queue's
// entries and the counters.
func drawPane(in pane.Input) []pane.Line {
	s, ok := readSnap(in.Snapshot)
	if !ok {
		return nil
	}
	var why *inspected
	if in.Inspect != nil {
		why = &inspected{}
		if json.Unmarshal(in.Inspect, why) != nil {
			why = nil
		}
	}
	changed := changedViews(in)
	idw := 1
	for _, id := range in.Peers {
		idw = max(idw, len(id))
	}
	idw = min(idw, maxLabel)
	text := func(s string) pane.Line { return pane.Cells(pane.Text(s)) }
	out := []pane.Line{
		text(" inc " + numfmt.Uint(s.Incarnation) + "  health " + numfmt.Int(s.Health) + "/" + numfmt.Int(s.HealthMax) + gossipMode(s.Gossip) + joined(s.Joined)),
		text(" bq " + numfmt.Int(s.BroadcastQueue.Depth) + " (" + numfmt.Bytes(s.BroadcastQueue.Bytes) + oversized(s.BroadcastQueue.Oversized) + ")" +
			"  probe r" + numfmt.Uint(s.Probe.Round) + " " + numfmt.Int(s.Probe.Position) + "/" + numfmt.Int(s.Probe.RoundLength) +
			probeTarget(s) + "  next " + numfmt.Short(s.Probe.NextProbeNs)),
	}
	// Members in the order the stepper lists hosts, the way people count
	// them (node2 before node10); the snapshot lists them in byte order.
	members := slices.SortedStableFunc(slices.Values(s.Members), func(a, b member) int { return natsort.Compare(a.ID, b.ID) })
	for _, m := range members {
		tail := " inc " + numfmt.Uint(m.Incarnation)
		if m.SuspicionDeadlineNs != nil {
			if left := *m.SuspicionDeadlineNs - in.NowNs; left > 0 {
				tail += "  dead in " + numfmt.Dur(left)
			} else {
				tail += "  deadline passed"
			}
			tail += "  conf " + numfmt.Int(m.Confirmations)
		}
		l := pane.Cells(pane.Text(" "+numfmt.Fit(m.ID, idw)+" "), pane.Cell{Text: numfmt.Fit(m.State, 7), Tone: stateTone(m.State)}, pane.Text(tail))
		if changed[m.ID] {
			l.Cells = []pane.Cell{{Text: cellText(l.Cells) + " *", Tone: hosts.ToneChanged}}
		}
		accused := m.State == swim.Suspect.String() || m.State == swim.Dead.String()
		if accused {
			l.Member = m.ID
			l.Find = "type=" + tTransition + " host=" + s.Self + " subject=" + m.ID + " to=" + m.State + " incarnation=" + strconv.FormatUint(m.Incarnation, 10)
			l.Follow = s.Self + "'s view of " + m.ID + " became " + m.State + " (inc " + numfmt.Uint(m.Incarnation) + ")"
		}
		out = append(out, l)
		if !accused {
			continue
		}
		// The accuser in full, wrapped, never cut: the key fact of a flap.
		by, ok := why.accuser(m.ID)
		var because string
		switch {
		case ok && by != "":
			because = "accused by " + by
		case ok:
			because = "accuser unknown"
		}
		var conf []string
		for _, a := range m.Accusers {
			if a != by {
				conf = append(conf, a)
			}
		}
		if len(conf) > 0 {
			if because != "" {
				because += "; "
			}
			because += "confirmed by " + strings.Join(conf, ", ")
		}
		if because != "" {
			w := l
			w.Cells, w.Wrap, w.Indent = []pane.Cell{{Text: because, Tone: hosts.ToneDim}}, true, 4
			out = append(out, w)
		}
	}
	if why != nil {
		q := &why.Queue
		out = append(out, pane.Cells(pane.Cell{Text: " broadcast queue (" + numfmt.Int(int64(q.Total)) + ", " + numfmt.Bytes(s.BroadcastQueue.Bytes) + "), next out first", Tone: hosts.ToneDim}))
		for _, e := range q.Entries {
			tail := " inc " + numfmt.Uint(e.Incarnation)
			if e.Accuser != "" {
				tail += " by " + e.Accuser
			}
			tail += "  tx " + numfmt.Int(int64(e.Transmits)) + "  " + numfmt.Bytes(int64(e.Bytes))
			out = append(out, pane.Cells(pane.Text("  "+numfmt.Fit(e.Member, idw)+" "), pane.Cell{Text: numfmt.Fit(e.State, 7), Tone: stateTone(e.State)}, pane.Text(tail)))
		}
		if more := q.Total - len(q.Entries); more > 0 {
			out = append(out, text("  … "+numfmt.Int(int64(more))+" more (the first "+numfmt.Int(int64(len(q.Entries)))+" listed)"))
		}
	}
	if len(s.Counters) > 0 {
		out = append(out, pane.Cells(pane.Cell{Text: " counters", Tone: hosts.ToneDim}), pane.Line{JSON: s.Counters})
	}
	return out
}

// changedViews names the members whose view (state, incarnation) the
// last step changed; nil when nothing is known of the step before.
func changedViews(in pane.Input) map[string]bool {
	if in.Before == nil {
		return nil
	}
	_, before, ok := viewsOf(in.Before)
	if !ok {
		return nil
	}
	_, now, _ := viewsOf(in.Snapshot)
	out := map[string]bool{}
	for _, v := range now {
		i := slices.IndexFunc(before, func(b hosts.View) bool { return b.Member == v.Member })
		if i < 0 || before[i].Version != v.Version || stateLetter(before[i].State) != stateLetter(v.State) {
			out[v.Member] = slices.Contains(in.Peers, v.Member)
		}
	}
	return out
}

func cellText(cs []pane.Cell) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.Text)
	}
	return b.String()
}

func stateTone(s string) hosts.Tone {
	if v, ok := views.StateNamed(s); ok {
		return v.Tone
	}
	return hosts.ToneDim
}

func stateLetter(s string) byte {
	if v, ok := views.StateNamed(s); ok {
		return v.Letter
	}
	return 0
}

func oversized(n int64) string {
	if n == 0 {
		return ""
	}
	return ", " + numfmt.Int(n) + " oversized"
}

func gossipMode(g string) string {
	if g == "" {
		return ""
	}
	return "  " + g
}

func joined(j bool) string {
	if j {
		return "  joined"
	}
	return "  joining"
}

func probeTarget(s *snap) string {
	if s.Probe.Target == "" {
		return ""
	}
	return " → " + s.Probe.Target + " #" + strconv.FormatUint(s.Probe.Seq, 10)
}
