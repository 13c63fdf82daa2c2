package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/detsim/detsim/hosts"
)

var peerKeys = []string{"id", "kind", "kind_config", "initial_state", "tick_period_ns_override", "recv_cost_ns", "recv_buffer_bytes"}

// peers validates [[peers]]: ids first, so each kind's Validate sees the
// full sorted list of declared ids.
func (c *checker) peers(top fields) {
	if arr, ok := top.tbl["peers"].([]any); ok && len(arr) > MaxPeers {
		top.add("peers", "%d peers declared; at most %d are supported", len(arr), MaxPeers)
		return
	}
	entries, present, _ := top.tableArray("peers")
	if !present || len(entries) == 0 {
		if !present {
			top.add("peers", "missing (at least one [[peers]] entry is required)")
		} else {
			top.add("peers", "at least one [[peers]] entry is required")
		}
		return
	}
	c.peersRead = true

	labels := make([]string, len(entries))
	firstAt := map[string]int{}
	for i, e := range entries {
		f := fields{r: c.r, prefix: entryLabel("peers", "", i) + ".", tbl: e}
		labels[i] = entryLabel("peers", "", i)
		id, ok := f.str("id", true)
		switch {
		case !ok:
		case !hosts.ValidPeerID(id):
			f.add("id", "%q is not a valid peer id (1 to 64 of A-Z a-z 0-9 _ -)", id)
		case c.declared[id]:
			f.add("id", "duplicate peer id %q (first declared as peers[#%d])", id, firstAt[id])
		default:
			c.declared[id] = true
			firstAt[id] = i
			labels[i] = entryLabel("peers", id, i)
		}
	}
	c.ids = slices.Sorted(maps.Keys(c.declared))

	peers := make([]Peer, 0, len(entries))
	refused := map[string]bool{} // kinds with a peer its Validate refused
	for i, e := range entries {
		if p, ok := c.peer(labels[i], e); ok {
			peers = append(peers, p)
		} else {
			kind, _ := e["kind"].(string)
			refused[kind] = true
		}
	}
	slices.SortFunc(peers, func(a, b Peer) int { return strings.Compare(a.ID, b.ID) })
	c.s.Peers = peers
	c.kindPeers(peers, refused)
}

// kindPeers runs each hosts.PeersValidator over its kind's peers
// together, for the kinds whose every peer passed Validate.
func (c *checker) kindPeers(peers []Peer, refused map[string]bool) {
	for _, kind := range c.reg.Kinds() {
		pv, ok := kind.(hosts.PeersValidator)
		if !ok || refused[kind.Tag()] {
			continue
		}
		var members []hosts.PeerConfig
		for _, p := range peers {
			if p.Kind == kind.Tag() {
				members = append(members, hosts.PeerConfig{ID: p.ID, Config: p.KindConfig})
			}
		}
		if len(members) == 0 {
			continue
		}
		for _, fe := range pv.ValidatePeers(members, c.ids) {
			c.r.add("peers."+fe.Field, "%s", fe.Msg)
		}
	}
}

// peer validates one [[peers]] entry whose errors are labelled label.
func (c *checker) peer(label string, e map[string]any) (Peer, bool) {
	f := fields{r: c.r, prefix: label + ".", tbl: e}
	f.checkKeys(peerKeys...)
	before := len(*c.r.errs)
	p := Peer{TickPeriodNs: c.s.TickPeriodNs}
	p.ID, _ = e["id"].(string)

	var kind hosts.Kind
	if tag, ok := f.str("kind", true); ok {
		p.Kind = tag
		if kind, ok = c.reg.Lookup(tag); !ok {
			f.add("kind", "unknown host kind %q (registered: %s)", tag, strings.Join(c.reg.Tags(), ", "))
		}
	}
	if state, ok := f.str("initial_state", false); ok {
		p.InitialState = state
		if kind != nil && !slices.Contains(kind.States(), state) {
			f.add("initial_state", "%q is not a state of kind %q (one of: %s)", state, kind.Tag(), strings.Join(kind.States(), ", "))
		}
	} else if !f.has("initial_state") && kind != nil && len(kind.States()) > 0 {
		p.InitialState = kind.States()[0]
	}
	if f.has("tick_period_ns_override") {
		p.TickPeriodNs, _ = f.integer("tick_period_ns_override", 1, MaxTimeNs, false)
	}
	if f.has("recv_cost_ns") {
		p.RecvCostNs, _ = f.integer("recv_cost_ns", 0, MaxRecvCostNs, false)
	}
	if f.has("recv_buffer_bytes") {
		p.RecvBufferBytes, _ = f.integer("recv_buffer_bytes", MinRecvBufferBytes, MaxSendBufferBytes, false)
	}
	if config, ok := f.table("kind_config", false); ok {
		p.KindConfig = clone(config).(map[string]any)
		checkConfigValues(f, "kind_config", config)
		if kind != nil {
			for _, fe := range kind.Validate(p.KindConfig, c.ids) {
				c.r.add(label+"."+fe.Field, "%s", fe.Msg)
			}
		}
	}
	return p, len(*c.r.errs) == before
}

// checkConfigValues rejects floats and date-times anywhere in a
// kind_config: hosts decide with integers only (spec §7.4), and a kind
// sees only int64, string, bool, []any and map[string]any.
func checkConfigValues(f fields, key string, v any) {
	switch x := v.(type) {
	case float64:
		f.add(key, "floating-point values are not allowed (%v); use an integer in the unit the key names", v)
	case time.Time:
		f.add(key, "date-time values are not allowed; use integer nanoseconds")
	case []any:
		for i, e := range x {
			checkConfigValues(f, fmt.Sprintf("%s[%d]", key, i), e)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			checkConfigValues(f, key+"."+k, x[k])
		}
	}
}
