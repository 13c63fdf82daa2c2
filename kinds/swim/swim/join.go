package swim

// Joining: a Joining node sends join_request to its seeds every probe
// interval until a join_response brings it the full membership.

func (n *Node) sendJoinRequests(now int64) {
	n.nextJoinAt = satAdd(now, n.cfg.ProbeIntervalNs)
	me := &n.members[n.selfIdx]
	for _, seed := range n.cfg.Seeds {
		if seed == n.self {
			continue
		}
		n.counters.JoinRequests++
		n.send(seed, &Message{Kind: JoinRequest, Incarnation: me.inc(), Meta: n.storedMeta(me)})
	}
}

// onJoinRequest learns the joiner, with its metadata, and answers with the
// full state.
func (n *Node) onJoinRequest(from string, msg *Message, now int64) {
	n.applyUpdate(Update{Member: from, State: Alive, Incarnation: msg.Incarnation, Meta: msg.Meta}, ReasonJoin, now)
	n.sendJoinResponse(from)
}

// sendJoinResponse sends every known member, by id, as far as fits in one
// datagram (the response is exempt from MaxMessageBytes, as memberlist
// sends it over TCP, but not from MaxDatagramBytes; members that do not fit
// are learnt by gossip).
func (n *Node) sendJoinResponse(to string) {
	msg := &Message{Kind: JoinResponse, From: n.self}
	budget := MaxDatagramBytes - bareSize(msg)
	members := make([]Update, 0, len(n.members))
	for idx := range n.byID() {
		m := &n.members[idx]
		u := Update{Member: n.id(idx), State: m.state(), Incarnation: m.inc(), From: n.accuser(m)}
		if m.state() == Alive {
			u.Meta = n.metaOf(idx)
		}
		sz := updateSize(&u)
		if sz > budget {
			break
		}
		budget -= sz
		members = append(members, u)
	}
	msg.Members = members
	n.send(to, msg)
}

// onJoinResponse merges the sender's full state. As in memberlist's
// push/pull merge, a member the sender believes dead becomes only suspect
// here, so one out-of-date peer cannot kill members outright; news about
// this node itself is taken as is, so a node that restarted after being
// declared dead learns it and refutes.
func (n *Node) onJoinResponse(msg *Message, now int64) {
	n.joined = true
	for _, u := range msg.Members {
		if u.State == Dead && u.Member != n.self {
			u.State = Suspect
		}
		n.applyUpdate(u, ReasonJoin, now)
	}
}

// pushPull is memberlist's periodic push/pull anti-entropy, on the
// messages this protocol already has: a join_request to one random live
// member (pushing this node's own alive, with its metadata) answered by a
// join_response with that member's full state. Gossip alone can lose a
// join's news — its alive update may retire after its few retransmissions
// before reaching everyone, for instance along a chain of joins — and
// these pulls repair that within one interval. memberlist also scales the
// interval up beyond 32 members; this library does not. Under
// DisseminateMemberlist only alive members are picked, as memberlist's
// pushPull does.
func (n *Node) pushPull(now int64) {
	n.nextPushPullAt = satAdd(now, n.cfg.PushPullIntervalNs)
	live := n.scratch[:0]
	for i := range n.members {
		if st := n.members[i].state(); int32(i) != n.selfIdx && st != Dead &&
			(st == Alive || n.cfg.Dissemination == DisseminateSWIM) {
			live = append(live, int32(i))
		}
	}
	n.scratch = live[:0]
	if len(live) == 0 {
		return
	}
	// live follows members' order, which is join order: deterministic.
	to := n.id(live[below(n.rand, uint64(len(live)))])
	me := &n.members[n.selfIdx]
	n.counters.PushPulls++
	n.send(to, &Message{Kind: JoinRequest, Incarnation: me.inc(), Meta: n.storedMeta(me)})
}
