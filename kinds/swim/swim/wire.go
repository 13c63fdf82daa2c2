package swim

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// MessageKind is the kind of a SWIM message. There are exactly six; a nack
// is an IndirectAck with Nack set, not a kind of its own.
type MessageKind uint8

// The message kinds. Wire values are the constants' values.
const (
	Ping         MessageKind = 1
	Ack          MessageKind = 2
	PingReq      MessageKind = 3
	IndirectAck  MessageKind = 4
	JoinRequest  MessageKind = 5
	JoinResponse MessageKind = 6
)

// String returns the kind's name as events spell it.
func (k MessageKind) String() string {
	switch k {
	case Ping:
		return "ping"
	case Ack:
		return "ack"
	case PingReq:
		return "ping_req"
	case IndirectAck:
		return "indirect_ack"
	case JoinRequest:
		return "join_request"
	case JoinResponse:
		return "join_response"
	}
	return "unknown"
}

// WireVersion is the first byte of every encoded message. Version 2 added
// member metadata to alive updates and join requests.
const WireVersion = 2

// MaxIDBytes is the longest member id the wire format carries (its length
// is one byte).
const MaxIDBytes = 255

// MaxMetaBytes is the largest member metadata the wire format carries
// (memberlist's MetaMaxSize).
const MaxMetaBytes = 512

// Update is one piece of membership news: Member is in State at
// Incarnation. From names the accuser of a Suspect or Dead update (the
// node whose probe failed or whose suspicion expired); it is empty, and not
// encoded, for Alive. Meta is the member's metadata (at most MaxMetaBytes),
// carried by Alive updates only; it is nil for Suspect and Dead, and Decode
// returns nil for an empty one.
//
// NB: a node shares Meta slices between its view, its queue and the
// messages it sends; nobody may modify them in place.
type Update struct {
	Member      string
	State       State
	Incarnation uint64
	From        string
	Meta        []byte
}

// sameNews reports whether a and b are the same news: member, state,
// incarnation and accuser (metadata follows from those).
func sameNews(a, b *Update) bool {
	return a.Member == b.Member && a.State == b.State && a.Incarnation == b.Incarnation && a.From == b.From
}

// Message is one SWIM message. Which fields a kind carries:
//
//	ping          Seq, Target (the member the sender means to reach)
//	ack           Seq
//	ping_req      Seq, Target
//	indirect_ack  Seq, Target, Nack
//	join_request  Incarnation, Meta (the joiner's own)
//	join_response Members (the sender's full membership view)
//
// Every kind carries From (the sender) and Updates (piggybacked
// dissemination). Encode rejects a field set on a kind that does not carry
// it, so Decode(Encode(m)) is m.
type Message struct {
	Kind        MessageKind
	From        string
	Seq         uint64
	Target      string
	Nack        bool
	Incarnation uint64
	Meta        []byte
	Members     []Update
	Updates     []Update
}

// updateSize is an update's encoded length.
func updateSize(u *Update) int {
	n := 1 + 8 + 1 + len(u.Member)
	if u.State == Alive {
		return n + 2 + len(u.Meta)
	}
	return n + 1 + len(u.From)
}

// minUpdateSize is the smallest possible encoded update (an alive update
// about a one-byte id without metadata, or a suspect or dead one about and
// by one-byte ids); a smaller remaining budget cannot take any update.
const minUpdateSize = 1 + 8 + 1 + 1 + 2

// bareSize is the encoded length of m without its piggybacked updates (the
// update count is included).
func bareSize(m *Message) int {
	n := 2 + 1 + len(m.From) + 2
	switch m.Kind {
	case Ping, PingReq:
		n += 8 + 1 + len(m.Target)
	case Ack:
		n += 8
	case JoinRequest:
		n += 8 + 2 + len(m.Meta)
	case IndirectAck:
		n += 8 + 1 + len(m.Target) + 1
	case JoinResponse:
		n += 2
		for i := range m.Members {
			n += updateSize(&m.Members[i])
		}
	}
	return n
}

// EncodedSize returns len(Encode(m)) for a message Encode accepts, without
// encoding it, and 0 for nil.
func EncodedSize(m *Message) int {
	if m == nil {
		return 0
	}
	n := bareSize(m)
	for i := range m.Updates {
		n += updateSize(&m.Updates[i])
	}
	return n
}

// Encode returns the wire bytes of m (layout in docs/swim.md). It fails on
// an unknown kind, a field the kind does not carry, an id that is empty or
// longer than MaxIDBytes, an invalid update, or a result longer than
// MaxDatagramBytes.
func Encode(m *Message) ([]byte, error) {
	return Append(make([]byte, 0, EncodedSize(m)), m)
}

// Append appends the wire bytes of m to b, as Encode does, so a transport
// can encode into a buffer it reuses. On error b is returned unchanged.
func Append(b []byte, m *Message) ([]byte, error) {
	size, _, err := checkedSize(m)
	if err != nil {
		return b, err
	}
	// Room for all of it at once: a legacy queue's message of hundreds
	// of updates otherwise grew b, copying it, a dozen times.
	b = slices.Grow(b, size)
	b = append(b, WireVersion, byte(m.Kind))
	b = appendID(b, m.From)
	switch m.Kind {
	case Ping, PingReq:
		b = binary.BigEndian.AppendUint64(b, m.Seq)
		b = appendID(b, m.Target)
	case Ack:
		b = binary.BigEndian.AppendUint64(b, m.Seq)
	case IndirectAck:
		b = binary.BigEndian.AppendUint64(b, m.Seq)
		b = appendID(b, m.Target)
		flags := byte(0)
		if m.Nack {
			flags = flagNack
		}
		b = append(b, flags)
	case JoinRequest:
		b = binary.BigEndian.AppendUint64(b, m.Incarnation)
		b = appendMeta(b, m.Meta)
	case JoinResponse:
		b = appendUpdates(b, m.Members)
	}
	b = appendUpdates(b, m.Updates)
	return b, nil
}

const flagNack = 0x01

// checkedSize checks m as Append does and returns its encoded length, and
// whether an update carries empty metadata that is not nil (Decode returns
// nil for it). The updates are checked and sized in one pass: a legacy
// queue's message is hundreds of them.
func checkedSize(m *Message) (size int, emptyMeta bool, err error) {
	if err := checkMessage(m); err != nil {
		return 0, false, err
	}
	size = bareSize(m)
	for i := range m.Updates {
		u := &m.Updates[i]
		if !updateOK(u) {
			if err := checkUpdate(u); err != nil {
				return 0, false, fmt.Errorf("swim: encode %s: update %d: %w", m.Kind, i, err)
			}
		}
		if u.Meta != nil && len(u.Meta) == 0 {
			emptyMeta = true
		}
		size += updateSize(u)
	}
	if size > MaxDatagramBytes {
		return 0, false, fmt.Errorf("swim: encode %s: %d bytes exceeds the %d-byte datagram limit", m.Kind, size, MaxDatagramBytes)
	}
	return size, emptyMeta, nil
}

// Handoff is Decode(Encode(m)) without the bytes between, and len(Encode(m)):
// what a transport that never needs the bytes (the simulator's headless
// run: hosts.HandingCodec) hands the receiver. It fails exactly when
// Append fails, with Append's error. The message is built in into (a
// message Handoff returned before whose receiver is done with it; nil for
// a new one), reusing its Updates and Members arrays, and shares with m
// only ids and metadata, which nobody modifies (see Update): a sender
// that overwrites m's Updates afterwards, as a node reusing its sent
// updates does on its next call (ReuseSentUpdates), does not change it.
// Empty metadata and empty lists are nil, as Decode returns them.
func Handoff(m *Message, into *Message) (*Message, int, error) {
	size, emptyMeta, err := checkedSize(m)
	if err != nil {
		return nil, 0, err
	}
	if into == nil {
		into = new(Message)
	}
	ups, members := into.Updates, into.Members
	*into = Message{Kind: m.Kind, From: m.From, Seq: m.Seq, Target: m.Target, Nack: m.Nack, Incarnation: m.Incarnation}
	if len(m.Meta) > 0 {
		into.Meta = m.Meta
	}
	into.Updates = handoffUpdates(ups, m.Updates, emptyMeta)
	into.Members = handoffUpdates(members, m.Members, true)
	return into, size, nil
}

// handoffUpdates copies src into dst's array (a new one if it is too
// small), nil for none; fix says an update may carry empty metadata that
// is not nil, which the copy makes nil as Decode would.
func handoffUpdates(dst, src []Update, fix bool) []Update {
	if len(src) == 0 {
		return nil
	}
	if cap(dst) < len(src) {
		dst = make([]Update, len(src), max(len(src), 2*cap(dst)))
	}
	dst = dst[:len(src)]
	copy(dst, src)
	if fix {
		for i := range dst {
			if len(dst[i].Meta) == 0 {
				dst[i].Meta = nil
			}
		}
	}
	return dst
}

func appendID(b []byte, s string) []byte {
	b = append(b, byte(len(s)))
	return append(b, s...)
}

func appendMeta(b []byte, meta []byte) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(meta)))
	return append(b, meta...)
}

func appendUpdates(b []byte, us []Update) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(us)))
	for i := range us {
		// Each update written in place at its known size, rather than
		// appended field by field: a legacy queue's message is hundreds
		// of them (docs/BENCHMARKS.md, "The swim queue's hot path").
		u := &us[i]
		n, size := len(b), updateSize(u)
		if cap(b)-n < size {
			b = slices.Grow(b, size)
		}
		b = b[:n+size]
		w := b[n:]
		w[0] = byte(u.State)
		binary.BigEndian.PutUint64(w[1:], u.Incarnation)
		w[9] = byte(len(u.Member))
		k := 10 + copy(w[10:], u.Member)
		if u.State == Alive {
			binary.BigEndian.PutUint16(w[k:], uint16(len(u.Meta)))
			copy(w[k+2:], u.Meta)
		} else {
			w[k] = byte(len(u.From))
			copy(w[k+1:], u.From)
		}
	}
	return b
}

// checkMessage checks m for Append, all but its updates (Append checks
// those as it sizes them).
func checkMessage(m *Message) error {
	if m == nil {
		return errors.New("swim: encode: nil message")
	}
	k := m.Kind
	if k < Ping || k > JoinResponse {
		return fmt.Errorf("swim: encode: unknown message kind %d", k)
	}
	if err := checkID("from", m.From); err != nil {
		return fmt.Errorf("swim: encode %s: %w", k, err)
	}
	hasSeq := k == Ping || k == Ack || k == PingReq || k == IndirectAck
	hasTarget := k == Ping || k == PingReq || k == IndirectAck
	switch {
	case !hasSeq && m.Seq != 0:
		return fmt.Errorf("swim: encode %s: kind carries no seq", k)
	case hasTarget:
		if err := checkID("target", m.Target); err != nil {
			return fmt.Errorf("swim: encode %s: %w", k, err)
		}
	case m.Target != "":
		return fmt.Errorf("swim: encode %s: kind carries no target", k)
	}
	if m.Nack && k != IndirectAck {
		return fmt.Errorf("swim: encode %s: only indirect_ack carries the nack flag", k)
	}
	if m.Incarnation != 0 && k != JoinRequest {
		return fmt.Errorf("swim: encode %s: kind carries no incarnation", k)
	}
	if len(m.Meta) > 0 && k != JoinRequest {
		return fmt.Errorf("swim: encode %s: kind carries no metadata", k)
	}
	if err := checkMeta(m.Meta); err != nil {
		return fmt.Errorf("swim: encode %s: %w", k, err)
	}
	if len(m.Members) > 0 && k != JoinResponse {
		return fmt.Errorf("swim: encode %s: kind carries no member list", k)
	}
	if len(m.Members) > 0xFFFF || len(m.Updates) > 0xFFFF {
		return fmt.Errorf("swim: encode %s: more than 65535 updates", k)
	}
	for i := range m.Members {
		if err := checkUpdate(&m.Members[i]); err != nil {
			return fmt.Errorf("swim: encode %s: member %d: %w", k, i, err)
		}
	}
	// The updates are checked by Append, in the pass that sizes them.
	return nil
}

func checkID(what, s string) error {
	if s == "" || len(s) > MaxIDBytes {
		return fmt.Errorf("%s id must be 1 to %d bytes, got %d", what, MaxIDBytes, len(s))
	}
	return nil
}

// updateOK reports, without building an error, that checkUpdate accepts
// u; checkUpdate is asked only when it does not (a legacy message checks
// hundreds of updates).
func updateOK(u *Update) bool {
	idOK := func(s string) bool { return uint(len(s)-1) < MaxIDBytes }
	if u.State == Alive {
		return idOK(u.Member) && u.From == "" && len(u.Meta) <= MaxMetaBytes
	}
	return (u.State == Suspect || u.State == Dead) && idOK(u.Member) && len(u.Meta) == 0 && idOK(u.From)
}

func checkUpdate(u *Update) error {
	if !u.State.valid() {
		return fmt.Errorf("invalid state %d", u.State)
	}
	if err := checkID("member", u.Member); err != nil {
		return err
	}
	if u.State == Alive {
		if u.From != "" {
			return errors.New("an alive update carries no accuser")
		}
		return checkMeta(u.Meta)
	}
	if len(u.Meta) > 0 {
		return errors.New("only an alive update carries metadata")
	}
	return checkID("accuser", u.From)
}

func checkMeta(meta []byte) error {
	if len(meta) > MaxMetaBytes {
		return fmt.Errorf("metadata must be at most %d bytes, got %d", MaxMetaBytes, len(meta))
	}
	return nil
}

// Decode parses wire bytes into a message. It rejects, with an error that
// names the byte offset, anything Encode would not produce: a wrong version,
// an unknown kind, truncation, empty or overlong ids, metadata longer than
// MaxMetaBytes, an invalid state or flag, trailing bytes, and input longer
// than MaxDatagramBytes. It never panics, and for every accepted input
// Encode(Decode(b)) equals b. The message shares no memory with b.
func Decode(b []byte) (*Message, error) {
	m := new(Message)
	var in interner
	if err := decode(b, m, &in, nil, nil); err != nil {
		return nil, err
	}
	return m, nil
}

// Decoder decodes one message after another into memory it keeps: its
// Message, the Updates array, and the ids and metadata the recent
// messages carried. A legacy queue's messages carry the same few members
// and their same metadata hundreds of times over, message after message,
// so once warm a Decoder allocates nothing (issue 32 asked the receiving
// side's hot path to be allocation-free: docs/BENCHMARKS.md, "A sweep
// does only what a seed needs"). It accepts and rejects exactly what
// Decode does, and the message it returns equals Decode's.
//
// NB: the returned message and its Updates are the Decoder's and are
// overwritten by the next Decode, so whoever reads one must copy what it
// keeps before then, and must not modify the Updates in place: a large
// message's are also remembered, to be returned again for the sender's
// next message (tails.go). Ids are strings and metadata is never
// modified in place (see Update), so both may be kept as they are.
type Decoder struct {
	msg   Message
	ups   []Update
	in    interner
	tails tails
}

// maxKeptUpdates bounds the Updates array a Decoder keeps: an engine keeps
// a Decoder per host, and a thousand-peer run's hosts each holding the
// array of their largest message would cost more than their views (a
// bounded queue's messages carry a few dozen updates, so theirs stay
// small). It is four times the 512 it was, so that a legacy queue's
// longest messages are kept too; below it the array grows by doubling,
// because a legacy queue's messages grow by an update or two at a time
// and an array of exactly each new count was a new array nearly every
// message. A join_response's Members (rare, and as long as the view)
// are never kept.
const maxKeptUpdates = 2048

// doubleUpdatesPast is the count beyond which the kept array doubles
// rather than fit the message: more than a bounded message of
// MaxMessageBytes (1 400 by default) carries.
const doubleUpdatesPast = 128

// Decode is Decode into the Decoder's memory. On error it returns nil and
// the Decoder stays usable.
func (d *Decoder) Decode(b []byte) (*Message, error) {
	d.msg = Message{}
	if err := decode(b, &d.msg, &d.in, &d.ups, &d.tails); err != nil {
		d.msg = Message{}
		return nil, err
	}
	return &d.msg, nil
}

// Message is the message the last successful Decode returned, or nil
// before one.
func (d *Decoder) Message() *Message {
	if d.msg.Kind == 0 {
		return nil
	}
	return &d.msg
}

// decode parses b into m (zero on entry). in is the interner to share ids
// and metadata through, left holding what this message added; ups, when
// set, holds the array to reuse for m.Updates; ts, when set, the large
// messages' update sections remembered per sender (tails.go).
func decode(b []byte, m *Message, in *interner, ups *[]Update, ts *tails) error {
	if len(b) > MaxDatagramBytes {
		return fmt.Errorf("swim: decode: %d bytes exceeds the %d-byte datagram limit", len(b), MaxDatagramBytes)
	}
	var err error
	r := reader{b: b, err: &err, in: in}
	if v := r.u8(wireField{what: "version"}, ""); *r.err == nil && v != WireVersion {
		return fmt.Errorf("swim: decode: unsupported wire version %d at byte 0", v)
	}
	m.Kind = MessageKind(r.u8(wireField{what: "kind"}, ""))
	if *r.err == nil && (m.Kind < Ping || m.Kind > JoinResponse) {
		return fmt.Errorf("swim: decode: unknown message kind %d at byte 1", m.Kind)
	}
	m.From = r.id(wireField{what: "from"})
	switch m.Kind {
	case Ping, PingReq:
		m.Seq = r.u64(wireField{what: "seq"}, "")
		m.Target = r.id(wireField{what: "target"})
	case Ack:
		m.Seq = r.u64(wireField{what: "seq"}, "")
	case IndirectAck:
		m.Seq = r.u64(wireField{what: "seq"}, "")
		m.Target = r.id(wireField{what: "target"})
		at := r.off
		switch f := r.u8(wireField{what: "flags"}, ""); {
		case *r.err != nil:
		case f == flagNack:
			m.Nack = true
		case f != 0:
			r.fail(at, fmt.Sprintf("unknown flags 0x%02x", f))
		}
	case JoinRequest:
		m.Incarnation = r.u64(wireField{what: "incarnation"}, "")
		// The joiner's own metadata, kept beside its id (From).
		m.Meta = r.meta(wireField{what: "join_request"})
	case JoinResponse:
		m.Members = r.updates("member", nil)
	}
	if ts != nil && m.Kind != JoinResponse {
		// A join response piggybacks a whole datagram's worth of a
		// bounded queue too, which changes from one to the next: only
		// the other kinds are remembered (tails.go).
		m.Updates = r.tailUpdates(ts, m.From, ups)
	} else {
		m.Updates = r.updates("update", ups)
	}
	if *r.err == nil && r.off != len(b) {
		r.fail(r.off, fmt.Sprintf("%d trailing bytes", len(b)-r.off))
	}
	return err
}

// reader is a bounds-checked cursor with a sticky error: after the first
// failure every read returns a zero value, so Decode checks once at the end.
type reader struct {
	b   []byte
	off int
	// err is the first failure. It is the caller's variable, not a field:
	// escape analysis does not tell a struct's fields apart, so a
	// returned field would send the interner held beside it, and with it
	// Decode's own, to the heap.
	err *error
	in  *interner
	// slot is the interner slot of the id read last, whose metadata a
	// metadata field is interned beside.
	slot int
}

// interner hands out the ids and metadata decoded before instead of new
// copies: a legacy queue's message names the same few members and their
// same metadata hundreds of times, and each repeat shares the first copy
// (strings are immutable, and nobody modifies Meta in place: see Update).
// Decode keeps one per message, a Decoder one for all its messages.
//
// An id is looked for in the two slots of its set, picked by a hash of
// its bytes, so a repeat costs a comparison or two, not one per id
// remembered; metadata is kept in the slot of the id it came with (an
// alive update's member, a join request's sender), so it too is compared
// once. Ids that meet in a full set evict each other, which costs an
// allocation, never a wrong answer.
type interner struct {
	slots [internSlots]internSlot
	// recent is, per set, the slot (0 or 1) found or filled last; a miss
	// evicts the other.
	recent [internSlots / 2]uint8
}

type internSlot struct {
	id   string
	meta []byte
}

// internBits sizes the table: 64 slots in 32 sets, a few kilobytes a
// Decoder, ample for the handful of peers a sweep's scenario runs; a
// thousand-peer run's Decoders miss often, as they did with the eight
// ids remembered before.
const (
	internBits  = 6
	internSlots = 1 << internBits
)

// internSet picks b's set from its length, its first byte and its last
// sixteen (ids usually differ at the end: "p0", "p1", "eu-002"): FNV-1a,
// then a Fibonacci multiply for the top bits. b is not empty.
func internSet(b []byte) int {
	h := (2166136261 ^ uint32(len(b))) * 16777619
	h = (h ^ uint32(b[0])) * 16777619
	for _, c := range b[max(0, len(b)-16):] {
		h = (h ^ uint32(c)) * 16777619
	}
	return int((h * 0x9E3779B1) >> (32 - (internBits - 1)))
}

// id returns an id equal to b, one remembered or b as a new string put in
// the slot of its set used least recently, and the slot.
func (in *interner) id(b []byte) (string, int) {
	set := internSet(b)
	k := 2 * set
	switch {
	case in.slots[k].id == string(b):
	case in.slots[k+1].id == string(b):
		k++
	default:
		k += 1 - int(in.recent[set])
		in.slots[k] = internSlot{id: string(b)}
	}
	in.recent[set] = uint8(k & 1)
	return in.slots[k].id, k
}

// meta returns metadata equal to b, the one kept in slot k (of the id b
// came with) or a copy of b put there. b is not empty.
func (in *interner) meta(k int, b []byte) []byte {
	s := &in.slots[k]
	if !bytes.Equal(s.meta, b) {
		s.meta = bytes.Clone(b)
	}
	return s.meta
}

func (r *reader) fail(at int, msg string) {
	if *r.err == nil {
		*r.err = fmt.Errorf("swim: decode: %s at byte %d", msg, at)
	}
}

// wireField names what a read is for, in a decode error ("update accuser").
// The text is built only when an error is reported: Decode runs for every
// delivered message, and building it up front cost an allocation per
// field read.
type wireField struct{ what, part string }

// with is the field's name followed by suffix, for an error message.
func (f wireField) with(suffix string) string {
	s := f.what
	for _, p := range [2]string{f.part, suffix} {
		if p != "" {
			s += " " + p
		}
	}
	return s
}

func (r *reader) need(n int, f wireField, suffix string) bool {
	if *r.err != nil {
		return false
	}
	if len(r.b)-r.off < n {
		r.fail(r.off, "truncated "+f.with(suffix))
		return false
	}
	return true
}

func (r *reader) u8(f wireField, suffix string) byte {
	if !r.need(1, f, suffix) {
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *reader) u16(f wireField, suffix string) uint16 {
	if !r.need(2, f, suffix) {
		return 0
	}
	v := binary.BigEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *reader) u64(f wireField, suffix string) uint64 {
	if !r.need(8, f, suffix) {
		return 0
	}
	v := binary.BigEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v
}

func (r *reader) id(f wireField) string {
	at := r.off
	n := int(r.u8(f, "length"))
	if *r.err != nil {
		return ""
	}
	if n == 0 {
		r.fail(at, "empty "+f.with("id"))
		return ""
	}
	if !r.need(n, f, "id") {
		return ""
	}
	s, k := r.in.id(r.b[r.off : r.off+n])
	r.slot = k
	r.off += n
	return s
}

// meta reads a metadata field: its length, then its bytes, copied so the
// message does not alias the caller's buffer. An empty one is nil, so
// that Decode(Encode(m)) is m for a message without metadata.
func (r *reader) meta(f wireField) []byte {
	at := r.off
	n := int(r.u16(f, "metadata length"))
	if *r.err != nil {
		return nil
	}
	if n > MaxMetaBytes {
		r.fail(at, fmt.Sprintf("%s metadata length %d exceeds %d", f.with(""), n, MaxMetaBytes))
		return nil
	}
	if n == 0 || !r.need(n, f, "metadata") {
		return nil
	}
	v := r.in.meta(r.slot, r.b[r.off:r.off+n])
	r.off += n
	return v
}

// updates reads a count and that many updates, into *reuse's array when
// reuse is set (growing it there, up to maxKeptUpdates), else a new one.
// No updates is nil.
func (r *reader) updates(what string, reuse *[]Update) []Update {
	f := wireField{what: what}
	count := int(r.u16(f, "count"))
	if *r.err != nil || count == 0 {
		return nil
	}
	// Every update takes at least minUpdateSize bytes, so a count the rest
	// of the input cannot hold is rejected before allocating for it.
	if count > (len(r.b)-r.off)/minUpdateSize {
		r.fail(r.off-2, fmt.Sprintf("%s count %d exceeds the remaining input", what, count))
		return nil
	}
	var us []Update
	switch {
	case reuse != nil && cap(*reuse) >= count:
		us = (*reuse)[:count]
	case reuse != nil && count <= maxKeptUpdates:
		// Doubling past a bounded message's few dozen: a legacy queue's
		// messages grow by an update or two at a time, and an array of
		// exactly each new count was a new array nearly every message;
		// a thousand bounded hosts keep arrays of exactly their longest.
		c := count
		if count > doubleUpdatesPast {
			c = min(max(count, 2*cap(*reuse)), maxKeptUpdates)
		}
		us = make([]Update, count, c)
		*reuse = us
	default:
		us = make([]Update, count)
	}
	for i := range us {
		if !r.update(&us[i], what) {
			return nil
		}
	}
	return us
}

// update reads one update (a member or an update, what says) into u, and
// reports whether it did; if not, the reader holds the error.
func (r *reader) update(u *Update, what string) bool {
	if r.fastUpdate(u) {
		return true
	}
	f := wireField{what: what}
	at := r.off
	s := State(r.u8(f, "state"))
	if *r.err == nil && !s.valid() {
		r.fail(at, fmt.Sprintf("invalid %s state %d", what, s))
	}
	u.State = s
	u.Incarnation = r.u64(f, "incarnation")
	u.Member = r.id(f)
	u.From, u.Meta = "", nil
	if s == Alive {
		u.Meta = r.meta(f)
	} else {
		u.From = r.id(wireField{what: what, part: "accuser"})
	}
	return *r.err == nil
}

// fastUpdate reads one well-formed update into u with one bounds check a
// field, and reports whether it did. Anything else (truncation, a bad
// state, an empty id, overlong metadata) it leaves unread for the careful
// reads above, which name the fault and its offset. It is most of a
// legacy seed's decoding: each message carries every update ever made.
func (r *reader) fastUpdate(u *Update) bool {
	b, off := r.b, r.off
	if len(b)-off < 1+8+1 {
		return false
	}
	s := State(b[off])
	n := int(b[off+9])
	if !s.valid() || n == 0 || len(b)-off-10 < n {
		return false
	}
	inc := binary.BigEndian.Uint64(b[off+1:])
	off += 10
	memberAt := off
	off += n
	var meta []byte
	from, fromAt, fromLen := "", 0, 0
	if s == Alive {
		if len(b)-off < 2 {
			return false
		}
		m := int(binary.BigEndian.Uint16(b[off:]))
		if m > MaxMetaBytes || len(b)-off-2 < m {
			return false
		}
		off += 2
		if m > 0 {
			meta, off = b[off:off+m], off+m
		}
	} else {
		if len(b)-off < 1 {
			return false
		}
		fromLen = int(b[off])
		if fromLen == 0 || len(b)-off-1 < fromLen {
			return false
		}
		fromAt = off + 1
		off = fromAt + fromLen
	}
	// Well formed: intern, in the order the careful reads would.
	member, k := r.in.id(b[memberAt : memberAt+n])
	u.State, u.Incarnation, u.Member, u.From, u.Meta = s, inc, member, "", nil
	if meta != nil {
		u.Meta = r.in.meta(k, meta)
	}
	if fromLen > 0 {
		from, r.slot = r.in.id(b[fromAt : fromAt+fromLen])
		u.From = from
	} else {
		r.slot = k
	}
	r.off = off
	return true
}
