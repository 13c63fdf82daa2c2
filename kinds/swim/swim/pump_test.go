package swim

import (
	"container/heap"
	"fmt"
	"slices"
	"testing"
)

// testRand is splitmix64: a tiny deterministic Rand for tests.
type testRand struct{ s uint64 }

func (r *testRand) Uint64() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

const (
	ms = int64(1_000_000)
	s  = 1000 * ms
)

type itemKind uint8

const (
	itemTick itemKind = iota
	itemDeliver
	itemTimer
)

// item is one scheduled occurrence in the pump's virtual-time queue.
type item struct {
	at    int64
	seq   uint64
	kind  itemKind
	host  string
	from  string
	data  []byte
	id    uint64
	token uint64
}

type itemHeap []item

func (h itemHeap) Len() int { return len(h) }
func (h itemHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h itemHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *itemHeap) Push(x any)   { *h = append(*h, x.(item)) }
func (h *itemHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// record is one event a node emitted, with when and who.
type record struct {
	at   int64
	host string
	ev   Event
}

// trace is every logged event, one line each, then every node's
// snapshot, one line each.
func (c *cluster) trace() []byte {
	var out []byte
	for _, r := range c.log {
		out = append(out, r.String()...)
		out = append(out, '\n')
	}
	for _, id := range c.ids {
		out = append(out, c.nodes[id].Snapshot()...)
		out = append(out, '\n')
	}
	return out
}

func (r record) String() string {
	return fmt.Sprintf("%d %s %s", r.at, r.host, r.ev.AppendJSON(nil))
}

// cluster is a tiny in-test simulator: nodes, a (time, seq) queue, fixed
// latency, an optional per-byte serialisation cost, killed hosts and cut
// edges. Messages cross it encoded, so the codec is exercised too.
type cluster struct {
	t       testing.TB
	ids     []string
	nodes   map[string]*Node
	rands   map[string]*testRand
	down    map[string]bool
	cut     map[[2]string]bool
	latency int64
	nsPerB  int64
	tick    int64
	now     int64
	seq     uint64
	q       itemHeap
	log     []record
	keepLog bool
	onSend  func(from, to string, m *Message, size int)
	// edgeFree is when each directed edge finishes serialising what it
	// already carries (used when nsPerB > 0).
	edgeFree map[[2]string]int64
	maxBytes map[MessageKind]int
	// lossPPM drops that many messages per million, drawn from lossRand.
	lossPPM  uint64
	lossRand testRand
	// outputs, when set (useOutputs), collect each node's effects through
	// SetOutput instead of the slices its calls return.
	outputs map[string]*collector
	// timerLossPPM loses that many armed timers per million, drawn from
	// lossRand, as a paused host loses them: Tick must conclude what they
	// would have.
	timerLossPPM uint64
	// afterCall, when set, is called after each call a node answered.
	afterCall func(id string)
}

// collector is an Output that gathers effects as the returned slice would.
type collector struct{ effects []Effect }

func (o *collector) Send(to string, msg *Message, id uint64) {
	o.effects = append(o.effects, Effect{Kind: EffectSend, To: to, Msg: msg, ID: id})
}
func (o *collector) Timer(at int64, token uint64) {
	o.effects = append(o.effects, Effect{Kind: EffectTimer, At: at, Token: token})
}
func (o *collector) Event(e Event) {
	o.effects = append(o.effects, Effect{Kind: EffectEvent, Event: e})
}

// useOutputs switches every node, and every node restarted later, to
// handing its effects to a collector.
func (c *cluster) useOutputs() {
	c.outputs = map[string]*collector{}
	for _, id := range c.ids {
		c.attach(id)
	}
}

func (c *cluster) attach(id string) {
	if c.outputs == nil {
		return
	}
	c.outputs[id] = &collector{}
	c.nodes[id].SetOutput(c.outputs[id])
}

// effects is what a node's call produced: the returned slice, or what its
// collector gathered (then the returned slice must be empty).
func (c *cluster) effects(host string, returned []Effect) []Effect {
	o := c.outputs[host]
	if o == nil {
		return returned
	}
	if len(returned) > 0 {
		c.t.Fatalf("%s returned %d effects while it has an Output", host, len(returned))
	}
	got := o.effects
	o.effects = nil
	return got
}

func newCluster(t testing.TB, ids []string, cfg Config, start func(id string) Start) *cluster {
	c := &cluster{
		t: t, ids: ids, nodes: map[string]*Node{}, rands: map[string]*testRand{},
		down: map[string]bool{}, cut: map[[2]string]bool{},
		latency: 10 * ms, tick: 100 * ms, keepLog: true, maxBytes: map[MessageKind]int{},
		edgeFree: map[[2]string]int64{},
	}
	for i, id := range ids {
		c.rands[id] = &testRand{s: uint64(i)*7919 + 1}
		st := Member
		if start != nil {
			st = start(id)
		}
		c.nodes[id] = New(id, cfg, st, ids, c.rands[id])
		c.push(item{at: int64(i) * 13 * ms % c.tick, kind: itemTick, host: id})
	}
	return c
}

func (c *cluster) push(it item) {
	c.seq++
	it.seq = c.seq
	heap.Push(&c.q, it)
}

// restart replaces a node with a fresh one (a new life) and un-kills it.
func (c *cluster) restart(id string, cfg Config, st Start) {
	c.rands[id] = &testRand{s: c.rands[id].s ^ 0xabcdef}
	c.nodes[id] = New(id, cfg, st, c.ids, c.rands[id])
	c.attach(id)
	c.down[id] = false
}

func (c *cluster) partition(a, b string, cut bool) {
	c.cut[[2]string{a, b}] = cut
	c.cut[[2]string{b, a}] = cut
}

// isolate cuts (or restores) every edge to and from id.
func (c *cluster) isolate(id string, cut bool) {
	for _, o := range c.ids {
		if o != id {
			c.partition(id, o, cut)
		}
	}
}

// run processes everything scheduled up to and including until.
func (c *cluster) run(until int64) {
	for len(c.q) > 0 && c.q[0].at <= until {
		it := heap.Pop(&c.q).(item)
		c.now = it.at
		n := c.nodes[it.host]
		switch it.kind {
		case itemTick:
			c.push(item{at: it.at + c.tick, kind: itemTick, host: it.host})
			if c.down[it.host] {
				continue
			}
			c.apply(it.host, c.effects(it.host, n.Tick(c.now)))
		case itemDeliver:
			if c.down[it.host] {
				continue
			}
			msg, err := Decode(it.data)
			if err != nil {
				c.t.Fatalf("decode %x: %v", it.data, err)
			}
			c.apply(it.host, c.effects(it.host, n.ReceiveID(it.from, it.id, msg, c.now)))
		case itemTimer:
			if c.down[it.host] {
				continue
			}
			c.apply(it.host, c.effects(it.host, n.TimerFired(it.token, c.now)))
		}
		if c.afterCall != nil && !c.down[it.host] {
			c.afterCall(it.host)
		}
	}
	c.now = until
}

func (c *cluster) apply(host string, effects []Effect) {
	var lastSent *MessageSent
	for _, e := range effects {
		switch e.Kind {
		case EffectEvent:
			if ms, ok := e.Event.(*MessageSent); ok {
				lastSent = ms
			}
			if c.keepLog {
				c.log = append(c.log, record{c.now, host, e.Event})
			}
		case EffectTimer:
			if c.timerLossPPM > 0 && below(&c.lossRand, 1_000_000) < c.timerLossPPM {
				continue
			}
			c.push(item{at: max(e.At, c.now), kind: itemTimer, host: host, token: e.Token})
		case EffectSend:
			b, err := Encode(e.Msg)
			if err != nil {
				c.t.Fatalf("%s encode %+v: %v", host, e.Msg, err)
			}
			if lastSent == nil || lastSent.Bytes != len(b) || lastSent.Peer != e.To || lastSent.Updates != len(e.Msg.Updates) || lastSent.ID != e.ID || e.ID == 0 {
				c.t.Fatalf("%s: send to %s (%d bytes) not preceded by a matching message_sent (%+v)", host, e.To, len(b), lastSent)
			}
			lastSent = nil
			c.maxBytes[e.Msg.Kind] = max(c.maxBytes[e.Msg.Kind], len(b))
			if c.onSend != nil {
				c.onSend(host, e.To, e.Msg, len(b))
			}
			if c.down[e.To] || c.cut[[2]string{host, e.To}] {
				continue
			}
			if c.lossPPM > 0 && below(&c.lossRand, 1_000_000) < c.lossPPM {
				continue
			}
			if _, ok := c.nodes[e.To]; !ok {
				continue
			}
			edge := [2]string{host, e.To}
			done := max(c.now, c.edgeFree[edge]) + c.nsPerB*int64(len(b))
			c.edgeFree[edge] = done
			c.push(item{at: done + c.latency, kind: itemDeliver, host: e.To, from: host, data: b, id: e.ID})
		default:
			c.t.Fatalf("unknown effect kind %d", e.Kind)
		}
	}
}

// view is observer's view of subject as "state@inc".
func (c *cluster) view(observer, subject string) string {
	st, inc, ok := c.nodes[observer].View(subject)
	if !ok {
		return "none"
	}
	return fmt.Sprintf("%s@%d", st, inc)
}

// allAlive reports whether every live node sees every live node alive.
func (c *cluster) allAlive(ids ...string) bool {
	for _, o := range ids {
		for _, s := range ids {
			if st, _, _ := c.nodes[o].View(s); st != Alive {
				return false
			}
		}
	}
	return true
}

// consistent reports whether every named node holds the same (state,
// incarnation) for every named member.
func (c *cluster) consistent(ids ...string) bool {
	for _, s := range ids {
		want := c.view(ids[0], s)
		for _, o := range ids[1:] {
			if c.view(o, s) != want {
				return false
			}
		}
	}
	return true
}

// runUntil advances in steps until cond holds or the deadline passes.
func (c *cluster) runUntil(deadline int64, cond func() bool) bool {
	for c.now < deadline {
		c.run(min(c.now+50*ms, deadline))
		if cond() {
			return true
		}
	}
	return cond()
}

func (c *cluster) events(host, typ string) []record {
	var out []record
	for _, r := range c.log {
		if (host == "" || r.host == host) && r.ev.Type() == typ {
			out = append(out, r)
		}
	}
	return out
}

func (c *cluster) transitions(observer, subject string) []*StateTransition {
	var out []*StateTransition
	for _, r := range c.events(observer, "state_transition") {
		st := r.ev.(*StateTransition)
		if st.Subject == subject {
			out = append(out, st)
		}
	}
	return out
}

func (c *cluster) dumpViews() string {
	out := ""
	for _, o := range c.ids {
		out += o + ":"
		for _, s := range c.ids {
			out += " " + s + "=" + c.view(o, s)
		}
		out += "\n"
	}
	return out
}

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("n%04d", i)
	}
	slices.Sort(out)
	return out
}
