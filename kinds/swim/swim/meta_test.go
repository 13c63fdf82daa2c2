package swim

import (
	"bytes"
	"strings"
	"testing"
)

func TestDerivedMeta(t *testing.T) {
	cases := []struct {
		id   string
		size int
		want string
	}{
		{"a", 0, ""},
		{"a", -3, ""},
		{"a", 1, "a"},
		{"a", 5, "a/a/a"},
		{"ab", 4, "ab/a"},
		{"node1", 3, "nod"},
		{"node1", 14, "node1/node1/no"},
	}
	for _, c := range cases {
		got := DerivedMeta(c.id, c.size)
		if string(got) != c.want || (c.want == "" && got != nil) {
			t.Errorf("DerivedMeta(%q, %d) = %q, want %q", c.id, c.size, got, c.want)
		}
	}
	if n := len(DerivedMeta(strings.Repeat("x", MaxIDBytes), MaxMetaBytes)); n != MaxMetaBytes {
		t.Fatalf("len %d", n)
	}
}

// An empty metadata field is canonical as nil, and Decode copies the
// bytes out of the caller's buffer (a transport reuses it).
func TestWire_EmptyMetaIsNilAndDecodeCopies(t *testing.T) {
	withEmpty, err := Encode(&Message{Kind: JoinRequest, From: "d", Meta: []byte{},
		Updates: []Update{{Member: "a", State: Alive, Meta: []byte{}}}})
	if err != nil {
		t.Fatal(err)
	}
	withNil, _ := Encode(&Message{Kind: JoinRequest, From: "d", Updates: []Update{{Member: "a", State: Alive}}})
	if !bytes.Equal(withEmpty, withNil) {
		t.Fatalf("%x != %x", withEmpty, withNil)
	}
	m, err := Decode(withEmpty)
	if err != nil {
		t.Fatal(err)
	}
	if m.Meta != nil || m.Updates[0].Meta != nil {
		t.Fatalf("empty metadata decoded as %#v, %#v", m.Meta, m.Updates[0].Meta)
	}
	b := unhex(t, "02 02 01 62 0000000000000007 0001 01 0000000000000003 01 61 0003 612f61")
	m, err = Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	clear(b)
	if string(m.Updates[0].Meta) != "a/a" {
		t.Fatalf("metadata aliases the input: %q", m.Updates[0].Meta)
	}
}

func metaCfg(size int) Config {
	cfg := DefaultConfig()
	cfg.MetaBytes = size
	return cfg
}

func metaOfNode(t testing.TB, n *Node, id string) string {
	t.Helper()
	m, ok := n.Meta(id)
	if !ok {
		t.Fatalf("%s does not know %s", n.Self(), id)
	}
	return string(m)
}

func sends(effects []Effect) []*Message {
	var out []*Message
	for _, e := range effects {
		if e.Kind == EffectSend {
			out = append(out, e.Msg)
		}
	}
	return out
}

// Every alive a node makes about itself carries its own metadata: the
// refutation on the ack, the re-assertion after a stale accusation, and
// its join requests.
func TestMeta_OwnMetadataOnEveryAliveAboutSelf(t *testing.T) {
	own := DerivedMeta("a", 40)
	n := New("a", metaCfg(40), Member, abc, &testRand{1})
	n.Tick(0)
	out := sends(n.Receive("b", &Message{Kind: Ping, From: "b", Seq: 4, Target: "a", Updates: []Update{upd("a", Suspect, 0)}}, 5))
	if len(out) != 1 || len(out[0].Updates) == 0 {
		t.Fatalf("sends %+v", out)
	}
	if u := out[0].Updates[0]; u.State != Alive || u.Incarnation != 1 || !bytes.Equal(u.Meta, own) {
		t.Fatalf("refutation %+v, want alive@1 with %q", u, own)
	}
	// Drain the queue, then a stale accusation re-queues the alive.
	for i := range 20 {
		n.Receive("b", &Message{Kind: Ping, From: "b", Seq: uint64(10 + i), Target: "a"}, 6)
	}
	if d, _ := n.QueueDepth(); d != 0 {
		t.Fatalf("queue not drained: %d", d)
	}
	out = sends(n.Receive("b", &Message{Kind: Ping, From: "b", Seq: 99, Target: "a", Updates: []Update{upd("a", Dead, 0)}}, 7))
	if u := out[0].Updates; len(u) != 1 || u[0].Incarnation != 1 || !bytes.Equal(u[0].Meta, own) {
		t.Fatalf("re-assertion %+v", u)
	}

	cfg := metaCfg(40)
	cfg.Seeds = []string{"b"}
	j := New("a", cfg, Joining, abc, &testRand{1})
	out = sends(j.Tick(0))
	if len(out) == 0 || out[0].Kind != JoinRequest || !bytes.Equal(out[0].Meta, own) {
		t.Fatalf("join request %+v", out)
	}
	if size := EncodedSize(out[0]); size != 15+1+40 {
		t.Fatalf("join request is %d bytes, want 56", size)
	}
}

// A member's stored metadata follows the incarnation rules: replaced when
// an alive about it is accepted, kept through suspicion and by alives that
// do not change the view; only an assumption yields to an alive at the
// stored incarnation. Relayed news about the member carries it.
func TestMeta_ReplacedOnlyByAcceptedAlive(t *testing.T) {
	x, y := []byte("x-life-1"), []byte("y-life-2")
	alive := func(inc uint64, meta []byte) Update {
		return Update{Member: "b", State: Alive, Incarnation: inc, Meta: meta}
	}
	n := New("a", metaCfg(10), Member, abc, &testRand{1})
	n.Tick(0)
	steps := []struct {
		name string
		u    Update
		want string
	}{
		{"assumed at a Member start", Update{}, string(DerivedMeta("b", 10))},
		{"an alive at the stored incarnation replaces an assumption", alive(0, x), string(x)},
		{"but not what was heard", alive(0, y), string(x)},
		{"accepted alive replaces", alive(1, y), string(y)},
		{"suspicion keeps it", upd("b", Suspect, 1), string(y)},
		{"alive at the suspected incarnation is not accepted", alive(1, x), string(y)},
		{"lower alive is stale", alive(0, x), string(y)},
		{"refutation replaces", alive(2, x), string(x)},
		{"death keeps it", upd("b", Dead, 2), string(x)},
		{"restart replaces", alive(3, nil), ""},
	}
	for _, st := range steps {
		if st.u.Member != "" {
			gossipTo(n, "c", 2, st.u)
		}
		if got := metaOfNode(t, n, "b"); got != st.want {
			t.Fatalf("%s: meta %q, want %q", st.name, got, st.want)
		}
	}
	// The accepted alive@3 is queued; what a relays carries b's metadata
	// as stored (here none), and after another refutation, the new one.
	gossipTo(n, "c", 3, alive(4, x))
	out := sends(n.Receive("c", &Message{Kind: Ping, From: "c", Seq: 1, Target: "a"}, 4))
	found := false
	for _, u := range out[0].Updates {
		if u.Member == "b" {
			found = true
			if u.Incarnation != 4 || !bytes.Equal(u.Meta, x) {
				t.Fatalf("relayed %+v", u)
			}
		}
	}
	if !found {
		t.Fatalf("b's alive not relayed: %+v", out[0].Updates)
	}
}

// Metadata a node never heard (a Joining start's seeds, a member learnt
// from an accusation) is assumed, and replaced by an alive at the stored
// incarnation without a transition; a wrong assumption's correction is
// queued, so peers who assumed the same learn it.
func TestMeta_AssumptionReplacedAtStoredIncarnation(t *testing.T) {
	cfg := metaCfg(10)
	cfg.Seeds = []string{"a"}
	n := New("b", cfg, Joining, abc, &testRand{1})
	n.Tick(0)
	if got := metaOfNode(t, n, "a"); got != string(DerivedMeta("a", 10)) {
		t.Fatalf("seed metadata before the join %q, want the assumption", got)
	}
	seedMeta := DerivedMeta("a", 30)
	out := n.Receive("a", &Message{Kind: JoinResponse, From: "a", Members: []Update{
		{Member: "a", State: Alive, Meta: seedMeta},
		{Member: "b", State: Alive, Meta: DerivedMeta("b", 10)},
		{Member: "zz", State: Suspect, Incarnation: 3, From: "a"},
	}}, 1)
	for _, st := range transitionsIn(out) {
		if st.Subject == "a" {
			t.Fatalf("learning metadata emitted %+v", *st)
		}
	}
	if got := metaOfNode(t, n, "a"); got != string(seedMeta) {
		t.Fatalf("seed metadata %q, want %q", got, seedMeta)
	}
	if !n.queue.holds("a", Alive, 0) || !bytes.Equal(n.queue.latest["a"].u.Meta, seedMeta) {
		t.Fatal("the corrected assumption about a is not queued")
	}
	if n.queue.holds("b", Alive, 0) {
		t.Fatal("its own alive, which every peer assumes right, was queued")
	}
	// A right assumption, once heard, is not news.
	cfg.Seeds = []string{"c"}
	n2 := New("b", cfg, Joining, abc, &testRand{1})
	n2.Tick(0)
	n2.Receive("c", &Message{Kind: JoinResponse, From: "c", Members: []Update{{Member: "c", State: Alive, Meta: DerivedMeta("c", 10)}}}, 1)
	if d, _ := n2.QueueDepth(); d != 0 {
		t.Fatalf("a right assumption was queued: depth %d", d)
	}
	assumed := string(DerivedMeta("zz", 10))
	if got := metaOfNode(t, n, "zz"); got != assumed {
		t.Fatalf("accused member's metadata %q, want the assumption", got)
	}
	gossipTo(n, "a", 2, Update{Member: "zz", State: Alive, Incarnation: 2, Meta: []byte("old")})
	if got := metaOfNode(t, n, "zz"); got != assumed {
		t.Fatalf("an older life's metadata was taken: %q", got)
	}
	gossipTo(n, "a", 2, Update{Member: "zz", State: Alive, Incarnation: 3, Meta: []byte("now")})
	if got := metaOfNode(t, n, "zz"); got != "now" {
		t.Fatalf("metadata %q, want now", got)
	}
	gossipTo(n, "a", 2, Update{Member: "zz", State: Alive, Incarnation: 3, Meta: []byte("other")})
	if got := metaOfNode(t, n, "zz"); got != "now" {
		t.Fatalf("heard metadata replaced at the same incarnation: %q", got)
	}
	if st, inc, _ := n.View("zz"); st != Suspect || inc != 3 {
		t.Fatalf("view of zz changed: %s@%d", st, inc)
	}
}

// A join_request stores the joiner's metadata and queues its alive with
// it; the join_response carries every alive member's metadata and none for
// the others.
func TestMeta_JoinRequestAndResponse(t *testing.T) {
	n := New("a", metaCfg(20), Member, abc, &testRand{1})
	n.Tick(0)
	gossipTo(n, "b", 1, upd("c", Dead, 0))
	joiner := []byte("zz's NodeAddr")
	out := n.Receive("zz", &Message{Kind: JoinRequest, From: "zz", Meta: joiner}, 2)
	if got := metaOfNode(t, n, "zz"); got != string(joiner) {
		t.Fatalf("joiner metadata %q", got)
	}
	sts := transitionsIn(out)
	if len(sts) != 1 || sts[0].Subject != "zz" || sts[0].Reason != ReasonJoin {
		t.Fatalf("transitions %v", sts)
	}
	msgs := sends(out)
	if len(msgs) != 1 || msgs[0].Kind != JoinResponse {
		t.Fatalf("sends %+v", msgs)
	}
	want := map[string]string{"a": string(DerivedMeta("a", 20)), "b": string(DerivedMeta("b", 20)), "c": "", "zz": string(joiner)}
	for _, u := range msgs[0].Members {
		if string(u.Meta) != want[u.Member] {
			t.Fatalf("member %s (%s) carries %q, want %q", u.Member, u.State, u.Meta, want[u.Member])
		}
	}
	if _, err := Encode(msgs[0]); err != nil {
		t.Fatal(err)
	}
	relayed := false
	for _, u := range msgs[0].Updates {
		relayed = relayed || (u.Member == "zz" && bytes.Equal(u.Meta, joiner))
	}
	if !relayed {
		t.Fatalf("the joiner's alive is not piggybacked with its metadata: %+v", msgs[0].Updates)
	}
}

// As memberlist's aliveNode: an alive about this node at its own
// incarnation with other metadata (another life's) is refuted.
func TestMeta_RefutesOwnAliveWithOtherMetadata(t *testing.T) {
	own := DerivedMeta("a", 10)
	cases := []struct {
		name string
		meta []byte
		bump bool
	}{
		{"same metadata", own, false},
		{"other metadata", []byte("previous life"), true},
		{"no metadata", nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := New("a", metaCfg(10), Member, abc, &testRand{1})
			n.Tick(0)
			out := gossipTo(n, "c", 1, Update{Member: "a", State: Alive, Meta: c.meta})
			var bump *SelfIncarnationBump
			for _, e := range out {
				if b, ok := e.Event.(*SelfIncarnationBump); ok {
					bump = b
				}
			}
			if !c.bump {
				if bump != nil || n.Incarnation() != 0 {
					t.Fatalf("refuted its own current alive: %+v", bump)
				}
				return
			}
			if bump == nil || bump.Cause != CauseRefuteAlive || n.Incarnation() != 1 {
				t.Fatalf("bump %+v, incarnation %d", bump, n.Incarnation())
			}
		})
	}
	// Without metadata anywhere nothing changes: nil equals nil.
	n := New("a", DefaultConfig(), Member, abc, &testRand{1})
	n.Tick(0)
	gossipTo(n, "c", 1, Update{Member: "a", State: Alive, Meta: []byte{}})
	if n.Incarnation() != 0 {
		t.Fatal("meta_bytes 0: refuted an empty metadata")
	}
}

// Updates handed over in process (the simulator passes messages without
// encoding them) are checked like decoded ones, so everything the node
// sends still encodes.
func TestMeta_InvalidInProcessUpdates(t *testing.T) {
	n := New("a", DefaultConfig(), Member, abc, &testRand{1})
	n.Tick(0)
	gossipTo(n, "c", 1, Update{Member: "b", State: Alive, Incarnation: 5, Meta: make([]byte, MaxMetaBytes+1)})
	if st, inc, _ := n.View("b"); st != Alive || inc != 0 || n.counters.InvalidUpdates != 1 {
		t.Fatalf("oversized metadata accepted: %s@%d, invalid %d", st, inc, n.counters.InvalidUpdates)
	}
	n.Receive("zz", &Message{Kind: JoinRequest, From: "zz", Meta: make([]byte, MaxMetaBytes+1)}, 2)
	if _, _, ok := n.View("zz"); ok || n.counters.InvalidUpdates != 2 {
		t.Fatal("join request with oversized metadata accepted")
	}
	gossipTo(n, "c", 3, Update{Member: "b", State: Suspect, Incarnation: 1, From: "c", Meta: []byte("junk")})
	for _, m := range sends(n.Receive("c", &Message{Kind: Ping, From: "c", Seq: 1, Target: "a"}, 4)) {
		if _, err := Encode(m); err != nil {
			t.Fatalf("sent an unencodable message: %v", err)
		}
	}
}

func TestSnapshot_MetaBytes(t *testing.T) {
	plain := string(New("a", DefaultConfig(), Member, abc, &testRand{1}).Snapshot())
	if strings.Contains(plain, "meta_bytes") || strings.Contains(plain, "oversized") {
		t.Fatalf("meta_bytes 0 changed the snapshot: %s", plain)
	}
	n := New("a", metaCfg(7), Member, abc, &testRand{1})
	n.Tick(0)
	gossipTo(n, "c", 1, Update{Member: "b", State: Alive, Incarnation: 1, Meta: []byte("0123456789")})
	snap := string(n.Snapshot())
	for _, want := range []string{
		`{"id":"a","state":"alive","incarnation":0,"meta_bytes":7}`,
		`{"id":"b","state":"alive","incarnation":1,"meta_bytes":10}`,
		`{"id":"c","state":"alive","incarnation":0,"meta_bytes":7}`,
		// The queued alive about b: 12 + 1 + 10 bytes.
		`"broadcast_queue":{"depth":1,"bytes":23}`,
	} {
		if !strings.Contains(snap, want) {
			t.Fatalf("snapshot lacks %s:\n%s", want, snap)
		}
	}
}

// The queue's byte accounting counts metadata in both modes, and Legacy's
// 65,507-byte cap counts it too.
func TestQueue_CountsMetadata(t *testing.T) {
	for _, mode := range []GossipMode{Bounded, Legacy} {
		cfg := DefaultConfig()
		cfg.Gossip = mode
		n := New("a", cfg, Member, abc, &testRand{1})
		n.Tick(0)
		gossipTo(n, "c", 1, Update{Member: "b", State: Alive, Incarnation: 1, Meta: make([]byte, 100)})
		if d, b := n.QueueDepth(); d != 1 || b != 12+1+100 {
			t.Fatalf("%s: depth %d bytes %d, want 1 and 113", mode, d, b)
		}
	}
	cfg := DefaultConfig()
	cfg.Gossip = Legacy
	n := New("a", cfg, Member, abc, &testRand{1})
	n.Tick(0)
	// 200 refutations by b with 500 metadata bytes each: 513 bytes an
	// update, about 100 KB queued.
	for i := range uint64(200) {
		gossipTo(n, "b", 1, Update{Member: "b", State: Alive, Incarnation: i + 1, Meta: make([]byte, 500)})
	}
	out := sends(n.Tick(2 * s))
	if len(out) == 0 {
		t.Fatal("no send")
	}
	b, err := Encode(out[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > MaxDatagramBytes || len(b) <= MaxDatagramBytes-513 {
		t.Fatalf("legacy message %d bytes, want within one update of %d", len(b), MaxDatagramBytes)
	}
}

// An alive larger than the remaining budget is not piggybacked; it waits,
// untransmitted, for a message with room.
func TestQueue_SkipsUpdateLargerThanRemainingBudget(t *testing.T) {
	q := newQueue(Bounded, 1000)
	big := Update{Member: "x", State: Alive, Incarnation: 1, Meta: make([]byte, 300)} // 313 bytes
	small := Update{Member: "y", State: Suspect, From: "z"}                           // 13 bytes
	q.push(big)
	q.push(small)
	got, left := q.take(nil, 200, 10, nil)
	if len(got) != 1 || got[0].Member != "y" || left != 187 {
		t.Fatalf("took %+v, %d left", got, left)
	}
	if b := q.latest["x"]; b == nil || b.transmits != 0 {
		t.Fatal("the skipped alive must stay queued, untransmitted")
	}
	got, _ = q.take(nil, 313, 10, nil)
	if len(got) != 1 || got[0].Member != "x" {
		t.Fatalf("took %+v", got)
	}
}

// An update no budgeted message could carry is not queued in Bounded (it
// would never be sent, so never retire): it is counted, supersedes older
// news about its member, and still reaches joiners in the exempt
// join_response. Legacy has no budget and queues it.
func TestBounded_OversizedUpdateNotQueued(t *testing.T) {
	huge := DerivedMeta("zz", 400) // an alive of 12 + 2 + 400 bytes
	for _, mode := range []GossipMode{Bounded, Legacy} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Gossip = mode
			cfg.MaxMessageBytes = 200
			if errs := cfg.Validate(abc); len(errs) != 0 {
				t.Fatal(errs)
			}
			n := New("a", cfg, Member, abc, &testRand{1})
			n.Tick(0)
			gossipTo(n, "b", 1, Update{Member: "zz", State: Suspect, From: "b"})
			gossipTo(n, "b", 2, Update{Member: "zz", State: Alive, Incarnation: 1, Meta: huge})
			if got := metaOfNode(t, n, "zz"); got != string(huge) {
				t.Fatal("the view did not take the update")
			}
			queued := n.queue.holds("zz", Alive, 1)
			snap := string(n.Snapshot())
			if mode == Legacy {
				if !queued {
					t.Fatal("legacy did not queue it")
				}
				return
			}
			if queued || n.queue.latest["zz"] != nil {
				t.Fatal("bounded queued an update no message can carry, or kept the older one")
			}
			if !strings.Contains(snap, `"oversized":1}`) {
				t.Fatalf("not counted: %s", snap)
			}
			for i := range 30 {
				for _, m := range sends(n.Receive("b", &Message{Kind: Ping, From: "b", Seq: uint64(i), Target: "a"}, 3)) {
					if size := EncodedSize(m); size > cfg.MaxMessageBytes {
						t.Fatalf("%s of %d bytes", m.Kind, size)
					}
				}
			}
			if d, _ := n.QueueDepth(); d != 0 {
				t.Fatalf("queue depth %d: something is stuck", d)
			}
			resp := sends(n.Receive("c", &Message{Kind: JoinRequest, From: "c"}, 4))
			carried := false
			for _, u := range resp[0].Members {
				carried = carried || (u.Member == "zz" && bytes.Equal(u.Meta, huge))
			}
			if !carried {
				t.Fatal("join_response lacks zz's metadata")
			}
		})
	}
}

// checkMetaEverywhere fails unless every observer stores, for every
// member in size, the metadata that member derives with its own
// meta_bytes.
func checkMetaEverywhere(t *testing.T, c *cluster, size map[string]int) {
	t.Helper()
	for _, o := range c.ids {
		for _, m := range c.ids {
			if _, ok := size[m]; !ok {
				continue
			}
			if got, want := metaOfNode(t, c.nodes[o], m), string(DerivedMeta(m, size[m])); got != want {
				t.Fatalf("%s holds %s's metadata as %d bytes %.20q…, want %d bytes %.20q…", o, m, len(got), got, len(want), want)
			}
		}
	}
}

// Metadata reaches every node through the join: every node has its own
// meta_bytes, so no assumption is right and every correct copy came over
// the wire: join requests, the seed's join responses, and the joiners'
// alives relayed by gossip. No refutation is needed.
func TestMeta_ReachesEveryNodeViaJoin(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e"}
	size := map[string]int{"a": 100, "b": 150, "c": 200, "d": 300, "e": MaxMetaBytes}
	c := newCluster(t, names, DefaultConfig(), nil)
	for _, id := range names {
		cfg := metaCfg(size[id])
		if id != "a" {
			cfg.Seeds = []string{"a"}
		}
		if errs := cfg.Validate(names); len(errs) != 0 {
			t.Fatal(errs)
		}
		c.nodes[id] = New(id, cfg, Joining, names, c.rands[id])
	}
	joinBytes := map[string]int{}
	c.onSend = func(from, to string, m *Message, n int) {
		if m.Kind == JoinRequest && len(m.Updates) == 0 {
			joinBytes[from] = n
		}
	}
	if !c.runUntil(20*s, func() bool { return c.allAlive(names...) && c.consistent(names...) }) {
		t.Fatalf("no convergence:\n%s", c.dumpViews())
	}
	checkMetaEverywhere(t, c, size)
	if joinBytes["e"] != 15+1+MaxMetaBytes {
		t.Fatalf("e's join request is %d bytes, want 528", joinBytes["e"])
	}
	if n := len(c.events("", "self_incarnation_bump")); n != 0 {
		t.Fatalf("%d refutations: a join needs none", n)
	}
}

// Metadata reaches every node through a refutation: c came up with other
// metadata than its peers assume (a new address), is suspected while cut
// off, and its refutation carries the new metadata everywhere.
func TestMeta_ReachesEveryNodeViaRefutation(t *testing.T) {
	c := newCluster(t, abc, metaCfg(100), nil)
	c.nodes["c"] = New("c", metaCfg(300), Member, abc, c.rands["c"])
	c.run(3 * s)
	if got := metaOfNode(t, c.nodes["a"], "c"); got != string(DerivedMeta("c", 100)) {
		t.Fatalf("a's assumption about c: %q", got)
	}
	c.isolate("c", true)
	if !c.runUntil(10*s, func() bool { return c.view("a", "c") != "alive@0" || c.view("b", "c") != "alive@0" }) {
		t.Fatal("c never suspected")
	}
	c.isolate("c", false)
	var refutation int
	c.onSend = func(from, to string, m *Message, n int) {
		for _, u := range m.Updates {
			if u.Member == "c" && u.State == Alive && u.Incarnation == 1 {
				refutation = max(refutation, updateSize(&u))
			}
		}
	}
	if !c.runUntil(c.now+10*s, func() bool { return c.allAlive(abc...) && c.consistent(abc...) }) {
		t.Fatalf("no convergence:\n%s", c.dumpViews())
	}
	checkMetaEverywhere(t, c, map[string]int{"c": 300})
	if refutation != 12+1+300 {
		t.Fatalf("c's refutation was %d bytes on the wire, want 313", refutation)
	}
}

// A node restarted with other metadata (a new address) before anyone
// noticed rejoins at the incarnation its peers hold. If its seed had heard
// its old metadata, the join_response shows it back, c refutes
// (refute_alive, as memberlist does) and the new metadata replaces the old
// everywhere at incarnation 1. If its peers had only assumed it, the seed
// takes the join_request's metadata and gossips the correction: no
// refutation.
func TestMeta_RestartWithOtherMetadata(t *testing.T) {
	cases := []struct {
		name      string
		firstLife Start // c's first start: Joining makes a hear its metadata
		wantInc   string
		bumps     int
	}{
		{"seed heard the old metadata", Joining, "alive@1", 1},
		{"peers only assumed it", Member, "alive@0", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := metaCfg(100)
			cfg.Seeds = []string{"a"}
			c := newCluster(t, abc, cfg, func(id string) Start {
				if id == "c" {
					return tc.firstLife
				}
				return Member
			})
			c.run(2 * s)
			next := metaCfg(250)
			next.Seeds = []string{"a"}
			c.restart("c", next, Joining)
			ok := c.runUntil(c.now+10*s, func() bool {
				return c.allAlive(abc...) && c.consistent(abc...) && c.view("b", "c") == tc.wantInc &&
					metaOfNode(t, c.nodes["b"], "c") == string(DerivedMeta("c", 250))
			})
			if !ok {
				t.Fatalf("no convergence:\n%s", c.dumpViews())
			}
			checkMetaEverywhere(t, c, map[string]int{"a": 100, "b": 100, "c": 250})
			bumps := c.events("c", "self_incarnation_bump")
			if len(bumps) != tc.bumps {
				t.Fatalf("%d refutations, want %d", len(bumps), tc.bumps)
			}
			if tc.bumps > 0 && bumps[0].ev.(*SelfIncarnationBump).Cause != CauseRefuteAlive {
				t.Fatalf("bump %+v", bumps[0].ev)
			}
		})
	}
}

// With large metadata, Bounded still keeps every message within
// max_message_bytes (an alive that does not fit the remaining budget waits
// for the next message), news still converges, and the queues drain.
func TestBoundedGossip_LargeMetaRespectsByteBudget(t *testing.T) {
	names := ids(20)
	cfg := metaCfg(300) // an alive is 12 + 5 + 300 = 317 bytes
	cfg.MaxMessageBytes = 700
	if errs := cfg.Validate(names); len(errs) != 0 {
		t.Fatal(errs)
	}
	c := newCluster(t, names, cfg, nil)
	c.keepLog = false
	alivesPerMessage := 0
	c.onSend = func(from, to string, m *Message, size int) {
		if m.Kind != JoinResponse && size > cfg.MaxMessageBytes {
			t.Fatalf("%s -> %s %s is %d bytes, budget %d", from, to, m.Kind, size, cfg.MaxMessageBytes)
		}
		if m.Kind == JoinResponse {
			return // exempt from the budget, and carries what fits a datagram
		}
		k := 0
		for _, u := range m.Updates {
			if u.State == Alive {
				k++
			}
		}
		alivesPerMessage = max(alivesPerMessage, k)
	}
	c.run(2 * s)
	// Cut off a quarter of the cluster until they are suspected, then heal:
	// five refutations of 317 bytes each to spread, two per message at most.
	flapped := names[:5]
	for _, id := range flapped {
		c.isolate(id, true)
	}
	c.run(c.now + 4*s)
	for _, id := range flapped {
		c.isolate(id, false)
	}
	if !c.runUntil(c.now+60*s, func() bool { return c.allAlive(names...) && c.consistent(names...) }) {
		t.Fatalf("no convergence under a 700-byte budget:\n%s", c.dumpViews())
	}
	for _, id := range flapped {
		if v := c.view(names[10], id); v == "alive@0" {
			t.Fatalf("%s never refuted (%s): the test did not exercise refutations", id, v)
		}
	}
	if alivesPerMessage != 2 {
		t.Fatalf("at most %d alives per message, want exactly 2 (the budget's limit)", alivesPerMessage)
	}
	c.run(c.now + 60*s)
	for _, id := range names {
		if d, _ := c.nodes[id].QueueDepth(); d != 0 {
			t.Fatalf("%s: %d updates never left the queue", id, d)
		}
	}
	checkMetaEverywhere(t, c, func() map[string]int {
		m := map[string]int{}
		for _, id := range names {
			m[id] = 300
		}
		return m
	}())
}
