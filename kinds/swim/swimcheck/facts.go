package swimcheck

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/detsim/detsim/internal/jsonscan"
)

// The facts the evaluator hands to assertions. Each carries the line and
// virtual time of the record it came from.

// viewChange is one observer's view of one subject changing.
type viewChange struct {
	line     int
	timeNs   int64
	observer int32
	subject  int32
	was      state // the state of the view it replaced
	cur      view
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
	// noop is a PeerKill of a peer already killed, or a PeerResurrect of
	// a peer that was running: it changes nothing in the world.
	noop bool
}

// The payloads decoded from events. Each decoder tries the fast path of
// payloads_fast.go first and falls back to encoding/json into the wire
// shapes below, so the result never depends on which path ran. has*
// fields say a required member was present and not null.
type transitionPayload struct {
	Observer, Subject, To string
	Incarnation           uint64
	hasIncarnation        bool
}

type probePayload struct {
	Target, Mode string
	Seq          uint64
	hasSeq       bool
}

type messagePayload struct {
	Message  string
	Bytes    int64
	hasBytes bool
}

type bumpPayload struct {
	New    uint64
	hasNew bool
}

// mutationPayload is its own wire shape: none of its members is
// required to be present.
type mutationPayload struct {
	Kind          string   `json:"kind"`
	Peer          string   `json:"peer"`
	PeersA        []string `json:"peers_a"`
	PeersB        []string `json:"peers_b"`
	PreserveState bool     `json:"preserve_state"`
}

// The wire shapes encoding/json decodes into. Pointers tell a missing
// required member from a zero one.
type transitionJSON struct {
	Observer    string  `json:"observer"`
	Subject     string  `json:"subject"`
	To          string  `json:"to"`
	Incarnation *uint64 `json:"incarnation"`
}

type probeJSON struct {
	Target string  `json:"target"`
	Seq    *uint64 `json:"seq"`
	Mode   string  `json:"mode"`
}

type messageJSON struct {
	Message string `json:"message"`
	Bytes   *int64 `json:"bytes"`
}

type bumpJSON struct {
	New *uint64 `json:"new"`
}

// decode unmarshals an event payload into dst, naming the event type in
// the error.
func decode(raw []byte, typ string, dst any) error {
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("%s: %w", typ, err)
	}
	return nil
}

// present returns *v and whether v is set.
func present[T any](v *T) (T, bool) {
	if v == nil {
		var zero T
		return zero, false
	}
	return *v, true
}

// The read* functions decode a payload, fast path first; the slow*
// functions are encoding/json, the reference the fast path must match.

func readTransition(raw []byte, tx *jsonscan.Strings) (transitionPayload, error) {
	if p, ok := fastTransition(raw, tx); ok {
		return p, nil
	}
	return slowTransition(raw)
}

func slowTransition(raw []byte) (transitionPayload, error) {
	var j transitionJSON
	if err := decode(raw, "state_transition", &j); err != nil {
		return transitionPayload{}, err
	}
	p := transitionPayload{Observer: j.Observer, Subject: j.Subject, To: j.To}
	p.Incarnation, p.hasIncarnation = present(j.Incarnation)
	return p, nil
}

func readProbe(raw []byte, typ string, tx *jsonscan.Strings) (probePayload, error) {
	if p, ok := fastProbe(raw, tx); ok {
		return p, nil
	}
	return slowProbe(raw, typ)
}

func slowProbe(raw []byte, typ string) (probePayload, error) {
	var j probeJSON
	if err := decode(raw, typ, &j); err != nil {
		return probePayload{}, err
	}
	p := probePayload{Target: j.Target, Mode: j.Mode}
	p.Seq, p.hasSeq = present(j.Seq)
	return p, nil
}

// Each payload's reader tries its fast decoder, then encoding/json, alike in
// shape on purpose (payloads_fast.go says why).
func readMessage(raw []byte, tx *jsonscan.Strings) (messagePayload, error) {
	if p, ok := fastMessage(raw, tx); ok {
		return p, nil
	}
	return slowMessage(raw)
}

func slowMessage(raw []byte) (messagePayload, error) {
	var j messageJSON
	if err := decode(raw, "message_sent", &j); err != nil {
		return messagePayload{}, err
	}
	p := messagePayload{Message: j.Message}
	p.Bytes, p.hasBytes = present(j.Bytes)
	return p, nil
}

func readBump(raw []byte) (bumpPayload, error) {
	if p, ok := fastBump(raw); ok {
		return p, nil
	}
	return slowBump(raw)
}

func slowBump(raw []byte) (bumpPayload, error) {
	var j bumpJSON
	if err := decode(raw, "self_incarnation_bump", &j); err != nil {
		return bumpPayload{}, err
	}
	var p bumpPayload
	p.New, p.hasNew = present(j.New)
	return p, nil
}

// readMutation: the fast decoder, then encoding/json, as every reader here.
func readMutation(raw []byte, tx *jsonscan.Strings) (mutationPayload, error) {
	if p, ok := fastMutation(raw, tx); ok {
		return p, nil
	}
	return slowMutation(raw)
}

func slowMutation(raw []byte) (mutationPayload, error) {
	var p mutationPayload
	err := decode(raw, "mutation", &p)
	return p, err
}

// The decoders below check what the evaluator requires of each payload;
// tx makes its strings (nil allocates each).

func decodeTransition(raw []byte, host string, tx *jsonscan.Strings) (transitionPayload, state, error) {
	p, err := readTransition(raw, tx)
	if err != nil {
		return p, noView, err
	}
	return checkTransition(p, host)
}

// checkTransition is what the evaluator requires of a read transition.
func checkTransition(p transitionPayload, host string) (transitionPayload, state, error) {
	if p.Observer == "" {
		p.Observer = host
	}
	to, ok := parseState(p.To)
	switch {
	case p.Observer == "" || p.Subject == "":
		return p, noView, errors.New("state_transition: missing observer or subject")
	case !ok:
		return p, noView, fmt.Errorf("state_transition: unknown state %q", p.To)
	case !p.hasIncarnation:
		return p, noView, errors.New("state_transition: missing incarnation")
	}
	return p, to, nil
}

func decodeProbe(raw []byte, typ, host string, tx *jsonscan.Strings) (probePayload, error) {
	p, err := readProbe(raw, typ, tx)
	if err != nil {
		return p, err
	}
	return checkProbe(p, typ, host)
}

// checkProbe is what the evaluator requires of a read probe record.
func checkProbe(p probePayload, typ, host string) (probePayload, error) {
	switch {
	case host == "" || p.Target == "":
		return p, fmt.Errorf("%s: missing host or target", typ)
	case !p.hasSeq:
		return p, fmt.Errorf("%s: missing seq", typ)
	case p.Mode == "":
		return p, fmt.Errorf("%s: missing mode", typ)
	}
	return p, nil
}

func decodeMessage(raw []byte, tx *jsonscan.Strings) (messagePayload, error) {
	p, err := readMessage(raw, tx)
	if err != nil {
		return p, err
	}
	return checkMessage(p)
}

// checkMessage is what the evaluator requires of a read message_sent.
func checkMessage(p messagePayload) (messagePayload, error) {
	if p.Message == "" || !p.hasBytes {
		return p, errors.New("message_sent: missing message or bytes")
	}
	return p, nil
}

func decodeBump(raw []byte) (bumpPayload, error) {
	p, err := readBump(raw)
	if err != nil {
		return p, err
	}
	return checkBump(p)
}

// checkBump is what the evaluator requires of a read self_incarnation_bump.
func checkBump(p bumpPayload) (bumpPayload, error) {
	if !p.hasNew {
		return p, errors.New("self_incarnation_bump: missing new")
	}
	return p, nil
}

func decodeMutation(raw []byte, tx *jsonscan.Strings) (mutationPayload, error) {
	p, err := readMutation(raw, tx)
	if err != nil {
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
