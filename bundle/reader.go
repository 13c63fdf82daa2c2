package bundle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/detsim/detsim/hosts"
)

// maxEventLine is the longest events.ndjson line ReadEvents accepts. A
// SWIM join-response event carrying a large membership is far below it;
// a longer line means a corrupt file, and the limit keeps memory bounded.
const maxEventLine = 64 << 20

// EventRecord is one decoded events.ndjson line.
type EventRecord struct {
	VirtualTimeNs int64
	// HostID is "" for records bound to no host (null in the file).
	HostID  string
	KindTag string
	// Type is the event payload's "type" member.
	Type string
	// Event is the payload object, exactly as written. It is a fresh
	// slice for every record, so callers may keep it. (ReadEvents copies
	// payloads into shared 32 KiB blocks it never writes again, so a kept
	// payload keeps its block alive.)
	Event json.RawMessage
	// Unchecked says Event has not been checked (ScanEvents, Read
	// Unchecked): the reader must validate it, and return ErrRecheck if it
	// cannot read it.
	Unchecked bool
}

// LineError is a malformed events.ndjson line, named by its 1-based line
// number so evidence can point at events.ndjson#L<Line>.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("%s line %d: %v", EventsFile, e.Line, e.Err)
}

func (e *LineError) Unwrap() error { return e.Err }

// ReadEvents streams dir's events.ndjson, calling fn with each record and
// its 1-based line number in file order. Memory stays flat whatever the
// file's length. A malformed line stops the read with a *LineError; an
// error from fn stops it and is returned as is.
func ReadEvents(dir string, fn func(line int, rec EventRecord) error) error {
	var lines lineReader
	return eachLine(dir, func(line int, b []byte) error {
		rec, err := lines.parse(b)
		if err != nil {
			return &LineError{Line: line, Err: err}
		}
		return fn(line, rec)
	})
}

// Read is what a ScanEvents reader wants of the lines of one event type.
type Read uint8

const (
	// Skip: only the envelope and the type. The line is checked only as
	// far as its type (the envelope, and the payload's first member); a
	// malformed payload goes unnoticed, as it goes unread (detsim verify
	// still checks the file's hash). Event is nil.
	Skip Read = iota
	// Whole: the payload, after the whole line is checked as ReadEvents
	// checks it.
	Whole
	// Unchecked: the payload as the envelope delimits it, not checked,
	// for a reader that validates it anyway as it decodes. When the reader
	// cannot, its fn returns ErrRecheck, having changed nothing, and is
	// called again with the line checked whole.
	Unchecked
)

// ErrRecheck (hosts.ErrRecheck, what a kind's judge returns) is what a
// ScanEvents fn returns for an Unchecked payload it
// cannot read, to have the line checked whole and be called again.
var ErrRecheck = hosts.ErrRecheck

// ScanEvents is ReadEvents for a reader that looks only at some event
// types and keeps no payload, as the verdict evaluator does. Before each
// line it asks reads what it wants of that line's kind_tag and type (see Read). Event,
// when present, aliases the read buffer: it is valid only until fn
// returns. It saves a reader of a few types nearly all of the parsing and
// copying.
func ScanEvents(dir string, reads func(kindTag, typ string) Read, fn func(line int, rec EventRecord) error) error {
	var lines lineReader
	return eachLine(dir, func(line int, b []byte) error {
		rec, read, err := lines.scan(b, reads)
		if err != nil {
			return &LineError{Line: line, Err: err}
		}
		err = fn(line, rec)
		if read != Unchecked || !errors.Is(err, ErrRecheck) {
			return err
		}
		if rec, err = lines.checked(b); err != nil {
			return &LineError{Line: line, Err: err}
		}
		if err = fn(line, rec); errors.Is(err, ErrRecheck) {
			return fmt.Errorf("bundle: %s line %d: asked to recheck a checked line", EventsFile, line)
		}
		return err
	})
}

// scanBufferSize is the initial read buffer; it grows for a longer line.
const scanBufferSize = 64 << 10

// eachLine calls fn with every line of dir's events.ndjson (without its
// newline) and its 1-based number; b is valid until fn returns. The file
// is opened through dir (internal/safefile): a FIFO, a device or a link
// out of the bundle is refused before a byte is read, and memory is
// bounded by the longest line, whatever the file's length.
func eachLine(dir string, fn func(line int, b []byte) error) error {
	return EachLine(dir, fn)
}

// EachLine is the one events.ndjson line reader: it calls fn with every
// line of dir's events.ndjson (without its newline) and its 1-based
// number, as ReadEvents splits them; b is valid until fn returns. A line
// longer than the reader's bound is a *LineError.
//
// It is also the one place a folded line (docs/bundle.md, "Folded
// lines") is expanded: fn is called with each record it stands for, as
// its own line, numbered as the run numbered it, so every reader sees one
// line a record, as a detsim-bundle/2 bundle holds them, whatever the
// writer folded. A fold that cannot be expanded is a *LineError.
//
// The file may be stored gzip-compressed (OpenFile): the lines are the
// same either way.
func EachLine(dir string, fn func(line int, b []byte) error) error {
	f, err := OpenFile(dir, EventsFile)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, scanBufferSize), maxEventLine)
	var u Unfolder
	for sc.Scan() {
		if err := u.Each(sc.Bytes(), fn); err != nil {
			return err
		}
	}
	line := u.Lines()
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = fmt.Errorf("line longer than %d bytes", maxEventLine)
		}
		return &LineError{Line: line + 1, Err: err}
	}
	return nil
}

// envelope is the §9.2 record envelope as decoded. Pointers and raw
// messages tell a missing or null member from a zero one.
type envelope struct {
	VirtualTimeNs *int64          `json:"virtual_time_ns"`
	HostID        json.RawMessage `json:"host_id"`
	KindTag       *string         `json:"kind_tag"`
	Event         json.RawMessage `json:"event"`
}

// ParseEventLine decodes one events.ndjson line (without its newline).
// It accepts any JSON spacing and member order, so bundles from other
// producers read too, and rejects a line that lacks a member, has a
// negative time, an empty host id or kind tag, or an event that is not an
// object with a non-empty string "type".
//
// A line in AppendEventLine's own shape takes a fast path
// (reader_fast.go); every other line, and every error, comes from
// encoding/json as below.
func ParseEventLine(b []byte) (EventRecord, error) {
	if rec, start, end, ok := parseEventLineFast(b, nil); ok {
		rec.Event = bytes.Clone(b[start:end])
		return rec, nil
	}
	return parseEventLineSlow(b)
}

// parseEventLineSlow is ParseEventLine through encoding/json: the
// reference the fast path must agree with.
func parseEventLineSlow(b []byte) (EventRecord, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return EventRecord{}, errors.New("empty line")
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return EventRecord{}, fmt.Errorf("not a JSON event record: %w", err)
	}
	var rec EventRecord
	switch {
	case env.VirtualTimeNs == nil:
		return rec, errors.New("missing virtual_time_ns")
	case *env.VirtualTimeNs < 0:
		return rec, fmt.Errorf("virtual_time_ns %d is negative", *env.VirtualTimeNs)
	case env.KindTag == nil:
		return rec, errors.New("missing kind_tag")
	case *env.KindTag == "":
		return rec, errors.New("kind_tag is empty")
	case env.HostID == nil:
		return rec, errors.New("missing host_id (null when no host is bound)")
	case env.Event == nil:
		return rec, errors.New("missing event")
	}
	rec.VirtualTimeNs = *env.VirtualTimeNs
	rec.KindTag = *env.KindTag
	if !bytes.Equal(env.HostID, []byte("null")) {
		if err := json.Unmarshal(env.HostID, &rec.HostID); err != nil {
			return rec, errors.New("host_id is neither a string nor null")
		}
		if rec.HostID == "" {
			return rec, errors.New("host_id is an empty string (null means no host)")
		}
	}
	if env.Event[0] != '{' {
		return rec, errors.New("event is not a JSON object")
	}
	var head struct {
		Type *string `json:"type"`
	}
	if err := json.Unmarshal(env.Event, &head); err != nil {
		return rec, fmt.Errorf("event: %w", err)
	}
	if head.Type == nil || *head.Type == "" {
		return rec, errors.New(`event has no "type"`)
	}
	rec.Type = *head.Type
	rec.Event = env.Event
	return rec, nil
}
