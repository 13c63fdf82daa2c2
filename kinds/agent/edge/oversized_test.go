package edge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/property"
)

// streamProblem checks an Anthropic Messages stream's structure: every
// event's data is JSON of its event's type, message_start first, blocks
// opened at the next index while none is open, each delta and stop to
// the open block, message_delta with every block closed, message_stop
// last. "" when it holds.
func streamProblem(body []byte) string {
	open, next, started, stopped := -1, 0, false, false
	for i, ev := range bytes.Split(bytes.TrimSuffix(body, []byte("\n\n")), []byte("\n\n")) {
		var name string
		var data []byte
		for _, line := range bytes.Split(ev, []byte("\n")) {
			k, v, _ := bytes.Cut(line, []byte(": "))
			switch string(k) {
			case "event":
				name = string(v)
			case "data":
				data = v
			}
		}
		var d struct {
			Type  string `json:"type"`
			Index *int   `json:"index"`
		}
		if err := json.Unmarshal(data, &d); err != nil || d.Type != name {
			return fmt.Sprintf("event %d (%s): data %q", i, name, data)
		}
		idx := -2
		if d.Index != nil {
			idx = *d.Index
		}
		switch {
		case stopped:
			return fmt.Sprintf("event %d (%s) after message_stop", i, name)
		case !started && name != "message_start":
			return fmt.Sprintf("event %d (%s) before message_start", i, name)
		case name == "message_start":
			if started {
				return fmt.Sprintf("event %d: a second message_start", i)
			}
			started = true
		case name == "ping":
		case name == "content_block_start":
			if open >= 0 || idx != next {
				return fmt.Sprintf("event %d: content_block_start index %d, block %d open, next %d", i, idx, open, next)
			}
			open, next = idx, next+1
		case name == "content_block_delta", name == "content_block_stop":
			if open < 0 || idx != open {
				return fmt.Sprintf("event %d: %s to block %d, block %d open", i, name, idx, open)
			}
			if name == "content_block_stop" {
				open = -1
			}
		case name == "message_delta":
			if open >= 0 {
				return fmt.Sprintf("event %d: message_delta with block %d open", i, open)
			}
		case name == "message_stop":
			stopped = true
		default:
			return fmt.Sprintf("event %d: unexpected %s", i, name)
		}
	}
	if !stopped {
		return "no message_stop"
	}
	return ""
}

// TestOversized_ValidOnEverySchedule: the oversized fault's stream is a
// whole, well-formed stream, only too big, wherever a schedule puts it:
// on every after_chunks of every entry of the base workflow, and on each
// oversized entry of agent_faults' first 500 seeds (its filler cut to three events), in the four forms
// the edge serves. Before, an after_chunks outside the text block sent
// text deltas to a block not open (issue 31).
func TestOversized_ValidOnEverySchedule(t *testing.T) {
	reg := builtin.Registry()
	p, err := property.LoadLibrary("agent_faults", reg)
	if err != nil {
		t.Fatal(err)
	}
	check := func(where string, s *provider.Script, e *provider.Entry) {
		t.Helper()
		r := s.RenderAs(e, "t1.a1", provider.Format{Stream: true})
		var body []byte
		for _, pc := range r.Pieces {
			body = append(body, pc.Data...)
		}
		if why := streamProblem(body); why != "" || !r.Complete {
			t.Fatalf("%s: the Messages stream (complete %v): %s", where, r.Complete, why)
		}
		o := s.RenderAs(e, "t1.a1", provider.Format{OpenAI: true, Stream: true})
		for _, pc := range o.Pieces {
			for _, line := range bytes.Split(pc.Data, []byte("\n")) {
				data, ok := bytes.CutPrefix(line, []byte("data: "))
				if ok && string(data) != "[DONE]" && !json.Valid(data) {
					t.Fatalf("%s: an OpenAI chunk is not JSON: %.80q", where, data)
				}
			}
		}
		for _, openAI := range []bool{false, true} {
			w := s.RenderAs(e, "t1.a1", provider.Format{OpenAI: openAI})
			if len(w.Pieces) != 1 || !json.Valid(w.Pieces[0].Data) {
				t.Fatalf("%s: the whole response (OpenAI %v) is not one JSON body", where, openAI)
			}
		}
	}
	// scripts is the provider scripts of a seed's scenario.
	scripts := func(seed uint64) []provider.Script {
		sc, err := p.Scenario(seed, reg)
		if err != nil {
			t.Fatal(err)
		}
		var out []provider.Script
		for _, pe := range sc.Peers {
			if pe.Kind == provider.Tag {
				s, _ := provider.ParseScript(pe.KindConfig)
				out = append(out, s)
			}
		}
		return out
	}
	for _, s := range scripts(1) {
		for i := range s.Entries {
			e := s.Entries[i]
			e.Fault = provider.Fault{Kind: provider.FaultOversized, Bytes: 40_000}
			events := int64(5 + len(e.Text))
			for _, u := range e.Tools {
				events += int64(2 + len(u.Args))
			}
			for k := int64(0); k < events; k++ {
				e.Fault.AfterEvents = k
				check(fmt.Sprintf("entry %d after_chunks %d", i, k), &s, &e)
			}
		}
	}
	placed := 0
	for seed := uint64(1); seed <= 500; seed++ {
		for _, s := range scripts(seed) {
			for i := range s.Entries {
				if e := s.Entries[i]; e.Fault.Kind == provider.FaultOversized {
					placed++
					// The structure is the filler's place, not its size:
					// three filler events check it (a megabyte each takes
					// minutes on a loaded machine).
					e.Fault.Bytes = min(e.Fault.Bytes, 3*s.MaxChunkBytes)
					check(fmt.Sprintf("seed %d entry %d (after_chunks %d)", seed, i, e.Fault.AfterEvents), &s, &e)
				}
			}
		}
	}
	if placed < 50 {
		t.Errorf("%d oversized entries in 500 seeds: the test checks too few", placed)
	}
	t.Logf("%d oversized entries checked", placed)
}
