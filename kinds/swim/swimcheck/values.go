package swimcheck

import (
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/jsonscan"
	"github.com/detsim/detsim/kinds/swim/swim"
)

// Reading a record from the struct kinds/swim/swim built (hosts.EventRec.Value)
// gives the payload its JSON would: the same members, the same strings,
// then the same checks. A value of another type than the swim library's
// own (a kind reusing the tag) is read from its JSON, so what the judge
// concludes never depends on which it was handed; the library test
// TestTypedJudging_MatchesBundle (package sweep) holds the two equal.

// payload is the record's JSON: the line's, or its value's serialised.
func payload(rec *hosts.EventRec) []byte {
	if rec.Value != nil {
		return rec.Value.AppendJSON(nil)
	}
	return rec.Event
}

func valueTransition(v hosts.Event, host string, tx *jsonscan.Strings) (transitionPayload, state, error) {
	st, ok := v.(*swim.StateTransition)
	if !ok {
		return decodeTransition(v.AppendJSON(nil), host, tx)
	}
	p := transitionPayload{Observer: st.Observer, Subject: st.Subject, Incarnation: st.Incarnation, hasIncarnation: true}
	// The state as parseState would read its name, without the name:
	// one transition a member a node at start-up.
	var to state
	switch st.To {
	case swim.Alive:
		to = alive
	case swim.Suspect:
		to = suspect
	case swim.Dead:
		to = dead
	default:
		p.To = st.To.String()
		return checkTransition(p, host)
	}
	if p.Observer == "" {
		p.Observer = host
	}
	if p.Observer == "" || p.Subject == "" {
		return checkTransition(p, host) // its error
	}
	return p, to, nil
}

// The value* functions report false for no value, or one not of the
// library's types.

func valueProbe(v hosts.Event) (probePayload, bool) {
	var p probePayload
	switch e := v.(type) {
	case *swim.ProbeSent:
		p = probePayload{Target: e.Target, Mode: e.Mode, Seq: e.Seq}
	case *swim.ProbeAcked:
		p = probePayload{Target: e.Target, Mode: e.Mode, Seq: e.Seq}
	case *swim.ProbeTimedOut:
		p = probePayload{Target: e.Target, Mode: e.Mode, Seq: e.Seq}
	default:
		return p, false
	}
	p.hasSeq = true
	return p, true
}

func valueMessage(v hosts.Event) (messagePayload, bool) {
	m, ok := v.(*swim.MessageSent)
	if !ok {
		return messagePayload{}, false
	}
	return messagePayload{Message: m.Message.String(), Bytes: int64(m.Bytes), hasBytes: true}, true
}

func valueBump(v hosts.Event) (bumpPayload, bool) {
	b, ok := v.(*swim.SelfIncarnationBump)
	if !ok {
		return bumpPayload{}, false
	}
	return bumpPayload{New: b.New, hasNew: true}, true
}
