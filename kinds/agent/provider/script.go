package provider

import (
	"fmt"
	"slices"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/kindcfg"
)

// Fault kinds: seed 000's provider catalog, one at most per entry.
const (
	FaultRateLimit        = "rate_limit"         // 429 with retry-after
	FaultServerError      = "server_error"       // 5xx with an api_error body
	FaultOverloaded       = "overloaded"         // event: error (overloaded_error) inside a 200 stream after N events
	FaultTimeout          = "timeout"            // nothing at all: no first byte
	FaultStall            = "stall"              // a pause of stall_ns after N events, then the rest
	FaultHang             = "hang"               // N events, then the connection stays open and silent forever
	FaultTruncated        = "truncated"          // N events, then a clean close with no message_stop
	FaultMalformedSSE     = "malformed_sse"      // event N has a data line without its colon
	FaultMalformedJSON    = "malformed_json"     // event N's data is cut in half
	FaultOversized        = "oversized"          // bytes of filler text deltas after N events
	FaultDuplicateFrag    = "duplicate_fragment" // input_json_delta number `fragment` sent twice
	FaultReorderFrags     = "reorder_fragments"  // input_json_delta `fragment` and the next swapped
	FaultAuthExpired      = "auth_expired"       // 401 authentication_error
	DefaultModel          = "claude-sim-1"
	DefaultMaxChunkBytes  = 16 << 10
	MaxChunkBytesLimit    = 1 << 20
	DefaultOversizedBytes = 1 << 20
	// MaxOversizedEvents bounds the filler events of an oversized fault
	// (bytes / max_chunk_bytes), so a script cannot make a provider
	// render billions of frames.
	MaxOversizedEvents = 1 << 16
	maxTime            = int64(1) << 62
)

// FaultKinds lists every fault kind, in catalog order.
var FaultKinds = []string{
	FaultRateLimit, FaultServerError, FaultOverloaded, FaultTimeout, FaultStall, FaultHang,
	FaultTruncated, FaultMalformedSSE, FaultMalformedJSON, FaultOversized, FaultDuplicateFrag,
	FaultReorderFrags, FaultAuthExpired,
}

// Script is a provider's kind_config: the ordered responses it gives.
type Script struct {
	Model         string
	MaxChunkBytes int64
	// Steps are the workflow's step ids entries may be keyed by.
	Steps   []string
	Entries []Entry
}

// Entry is one scripted response.
type Entry struct {
	// Step, when set, keys the entry: only a request for that step takes it.
	Step string
	// FirstByteNs is the virtual delay from the request's arrival to the
	// first frame; ChunkNs the delay between two frames after it.
	FirstByteNs, ChunkNs int64
	Text                 []string // text_delta pieces of content block 0
	Tools                []ToolUse
	InputTokens          int64
	OutputTokens         int64
	Fault                Fault
}

// ToolUse is one tool_use content block: its id, tool name and the
// input_json_delta fragments of its arguments.
type ToolUse struct {
	ID, Name string
	Args     []string
}

// Fault is at most one fault of the catalog; Kind "" is none.
type Fault struct {
	Kind         string
	AfterEvents  int64 // after_chunks: events sent before the fault
	Status       int64 // server_error: 500..599
	RetryAfterNs int64 // rate_limit
	StallNs      int64 // stall
	Bytes        int64 // oversized
	Fragment     int64 // duplicate_fragment, reorder_fragments
}

var scriptKeys = []string{"model", "max_chunk_bytes", "steps", "script"}
var entryKeys = []string{"step", "first_byte_ns", "chunk_ns", "text", "tool_calls", "input_tokens", "output_tokens", "fault"}
var faultKeys = []string{"kind", "after_chunks", "status", "retry_after_ns", "stall_ns", "bytes", "fragment"}

// ParseScript reads a provider kind_config, returning every problem.
func ParseScript(config map[string]any) (Script, []hosts.FieldError) {
	r := &kindcfg.Reader{}
	t := kindcfg.Root(r, config)
	t.Keys(scriptKeys...)
	s := Script{
		Model:         t.Str("model", DefaultModel),
		MaxChunkBytes: t.Int("max_chunk_bytes", DefaultMaxChunkBytes, 1, MaxChunkBytesLimit),
		Steps:         t.Strs("steps"),
	}
	for i, id := range s.Steps {
		if id == "" || slices.Index(s.Steps, id) != i {
			r.Add(fmt.Sprintf("kind_config.steps[%d]", i), "step id %q is empty or repeated", id)
		}
	}
	if !t.Has("script") {
		r.Add("kind_config.script", "missing (required: an array of entries, or kind_config.script_file)")
	}
	for _, et := range t.Tables("script") {
		s.Entries = append(s.Entries, parseEntry(et, &s))
	}
	return s, r.Errs
}

func parseEntry(t kindcfg.T, s *Script) Entry {
	t.Keys(entryKeys...)
	e := Entry{
		Step:         t.Str("step", ""),
		FirstByteNs:  t.Int("first_byte_ns", 0, 0, maxTime),
		ChunkNs:      t.Int("chunk_ns", 0, 0, maxTime),
		Text:         t.Strs("text"),
		InputTokens:  t.Int("input_tokens", 0, 0, 1<<40),
		OutputTokens: t.Int("output_tokens", 0, 0, 1<<40),
	}
	if t.Has("step") && !slices.Contains(s.Steps, e.Step) {
		t.R.Add(t.Path("step"), "step id %q does not exist (kind_config.steps: %v)", e.Step, s.Steps)
	}
	for i, p := range e.Text {
		if int64(len(p)) > s.MaxChunkBytes {
			t.R.Add(fmt.Sprintf("%s[%d]", t.Path("text"), i), "chunk of %d bytes is larger than max_chunk_bytes %d", len(p), s.MaxChunkBytes)
		}
	}
	for _, tt := range t.Tables("tool_calls") {
		tt.Keys("id", "name", "args")
		u := ToolUse{ID: tt.Str("id", ""), Name: tt.Str("name", ""), Args: tt.Strs("args")}
		if u.ID == "" || u.Name == "" {
			tt.R.Add(tt.Prefix+"id", "a tool call needs a non-empty id and name")
		}
		for _, o := range e.Tools {
			if o.ID == u.ID {
				tt.R.Add(tt.Path("id"), "tool call id %q repeated in one response", u.ID)
			}
		}
		for i, p := range u.Args {
			if int64(len(p)) > s.MaxChunkBytes {
				tt.R.Add(fmt.Sprintf("%s[%d]", tt.Path("args"), i), "chunk of %d bytes is larger than max_chunk_bytes %d", len(p), s.MaxChunkBytes)
			}
		}
		e.Tools = append(e.Tools, u)
	}
	if ft, ok := t.Table("fault"); ok {
		e.Fault = parseFault(ft, &e, s)
	}
	return e
}

func parseFault(t kindcfg.T, e *Entry, s *Script) Fault {
	t.Keys(faultKeys...)
	f := Fault{Kind: t.Str("kind", "")}
	if !t.Has("kind") {
		t.R.Add(t.Path("kind"), "missing (one of: %v)", FaultKinds)
		return Fault{}
	}
	if !slices.Contains(FaultKinds, f.Kind) {
		t.R.Add(t.Path("kind"), "unknown fault %q (one of: %v)", f.Kind, FaultKinds)
		return Fault{}
	}
	allowed := map[string][]string{
		FaultRateLimit:     {"retry_after_ns"},
		FaultServerError:   {"status"},
		FaultOverloaded:    {"after_chunks"},
		FaultStall:         {"after_chunks", "stall_ns"},
		FaultHang:          {"after_chunks"},
		FaultTruncated:     {"after_chunks"},
		FaultMalformedSSE:  {"after_chunks"},
		FaultMalformedJSON: {"after_chunks"},
		FaultOversized:     {"after_chunks", "bytes"},
		FaultDuplicateFrag: {"fragment"},
		FaultReorderFrags:  {"fragment"},
	}[f.Kind]
	t.Keys(append([]string{"kind"}, allowed...)...)
	events := int64(eventCount(e))
	f.AfterEvents = t.Int("after_chunks", 1, 0, events-1)
	f.Status = t.Int("status", 500, 500, 599)
	f.RetryAfterNs = t.Int("retry_after_ns", 1_000_000_000, 0, maxTime)
	f.StallNs = t.Int("stall_ns", 5_000_000_000, 1, maxTime)
	f.Bytes = t.Int("bytes", DefaultOversizedBytes, 1, 1<<30)
	if f.Kind == FaultOversized && (f.Bytes+s.MaxChunkBytes-1)/s.MaxChunkBytes > MaxOversizedEvents {
		t.R.Add(t.Path("bytes"), "%d bytes in chunks of max_chunk_bytes %d make more than %d events; raise max_chunk_bytes", f.Bytes, s.MaxChunkBytes, MaxOversizedEvents)
	}
	frags := int64(0)
	for _, u := range e.Tools {
		frags += int64(len(u.Args))
	}
	switch f.Kind {
	case FaultDuplicateFrag:
		if frags == 0 {
			t.R.Add(t.Path("kind"), "%s needs a tool call with args fragments", f.Kind)
		} else {
			f.Fragment = t.Int("fragment", 0, 0, frags-1)
		}
	case FaultReorderFrags:
		if frags < 2 {
			t.R.Add(t.Path("kind"), "%s needs at least two args fragments", f.Kind)
		} else {
			f.Fragment = t.Int("fragment", 0, 0, frags-2)
		}
	case FaultMalformedJSON, FaultMalformedSSE:
		// The event replaced must carry data worth cutting: any does.
	}
	return f
}
