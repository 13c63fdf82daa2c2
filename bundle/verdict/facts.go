package verdict

import (
	"encoding/json"
	"errors"
	"fmt"
)

// The facts the evaluator hands to assertions. Each carries the line and
// virtual time of the record it came from.

// viewChange is one observer's view of one subject changing.
type viewChange struct {
	line     int
	timeNs   int64
	observer int32
	subject  int32
	old, cur view
}

// probeStep is one step of a direct probe's life.
type probeStep uint8

const (
	probeSent probeStep = iota + 1
	probeAcked
	probeTimedOut
)

// probeFact is a direct probe event: prober is the recording host.
type probeFact struct {
	line   int
	timeNs int64
	step   probeStep
	prober int32
	target int32
	seq    uint64
}

// messageFact is a message_sent event.
type messageFact struct {
	line    int
	timeNs  int64
	message string
	bytes   int64
}

// bumpFact is a self_incarnation_bump event.
type bumpFact struct {
	line   int
	timeNs int64
	host   string
	newInc uint64
}

// mutationFact is an engine mutation record, with the fields the
// assertions read.
type mutationFact struct {
	line          int
	timeNs        int64
	kind          string
	peer          int32 // PeerKill, PeerResurrect; -1 otherwise
	peersA        []int32
	peersB        []int32
	preserveState bool
}

// The payload shapes decoded from events. Pointers tell a missing
// required member from a zero one.
type transitionPayload struct {
	Observer    string  `json:"observer"`
	Subject     string  `json:"subject"`
	To          string  `json:"to"`
	Incarnation *uint64 `json:"incarnation"`
}

type probePayload struct {
	Target string  `json:"target"`
	Seq    *uint64 `json:"seq"`
	Mode   string  `json:"mode"`
}

type messagePayload struct {
	Message string `json:"message"`
	Bytes   *int64 `json:"bytes"`
}

type bumpPayload struct {
	New *uint64 `json:"new"`
}

type mutationPayload struct {
	Kind          string   `json:"kind"`
	Peer          string   `json:"peer"`
	PeersA        []string `json:"peers_a"`
	PeersB        []string `json:"peers_b"`
	PreserveState bool     `json:"preserve_state"`
}

// decode unmarshals an event payload into dst, naming the event type in
// the error.
func decode(raw []byte, typ string, dst any) error {
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s: %w", typ, err)
	}
	return nil
}

func decodeTransition(raw []byte, host string) (transitionPayload, state, error) {
	var p transitionPayload
	if err := decode(raw, "state_transition", &p); err != nil {
		return p, noView, err
	}
	if p.Observer == "" {
		p.Observer = host
	}
	to, ok := parseState(p.To)
	switch {
	case p.Observer == "" || p.Subject == "":
		return p, noView, errors.New("state_transition: missing observer or subject")
	case !ok:
		return p, noView, fmt.Errorf("state_transition: unknown state %q", p.To)
	case p.Incarnation == nil:
		return p, noView, errors.New("state_transition: missing incarnation")
	}
	return p, to, nil
}

func decodeProbe(raw []byte, typ, host string) (probePayload, error) {
	var p probePayload
	if err := decode(raw, typ, &p); err != nil {
		return p, err
	}
	switch {
	case host == "" || p.Target == "":
		return p, fmt.Errorf("%s: missing host or target", typ)
	case p.Seq == nil:
		return p, fmt.Errorf("%s: missing seq", typ)
	case p.Mode == "":
		return p, fmt.Errorf("%s: missing mode", typ)
	}
	return p, nil
}

func decodeMessage(raw []byte) (messagePayload, error) {
	var p messagePayload
	if err := decode(raw, "message_sent", &p); err != nil {
		return p, err
	}
	if p.Message == "" || p.Bytes == nil {
		return p, errors.New("message_sent: missing message or bytes")
	}
	return p, nil
}

func decodeBump(raw []byte) (bumpPayload, error) {
	var p bumpPayload
	if err := decode(raw, "self_incarnation_bump", &p); err != nil {
		return p, err
	}
	if p.New == nil {
		return p, errors.New("self_incarnation_bump: missing new")
	}
	return p, nil
}

func decodeMutation(raw []byte) (mutationPayload, error) {
	var p mutationPayload
	if err := decode(raw, "mutation", &p); err != nil {
		return p, err
	}
	if p.Kind == "" {
		return p, errors.New("mutation: missing kind")
	}
	if (p.Kind == "PeerKill" || p.Kind == "PeerResurrect") && p.Peer == "" {
		return p, fmt.Errorf("mutation: %s without peer", p.Kind)
	}
	return p, nil
}
