package provider

import (
	"testing"

	"github.com/detsim/detsim/scenarios"
)

// TestRenderAs_AFaultIsTheSameFaultInEveryForm: an entry renders four
// ways (Messages or Chat Completions, streamed or not), and a fault
// tears all four or none: with no fault or a stall every form carries
// the same whole content (one digest), with a fault that tears the
// stream none carries a whole response.
func TestRenderAs_AFaultIsTheSameFaultInEveryForm(t *testing.T) {
	forms := []Format{{Stream: true}, {}, {OpenAI: true, Stream: true}, {OpenAI: true}}
	for _, c := range []struct {
		fault string
		whole bool
	}{
		{``, true},
		{`fault = { kind = "stall", after_chunks = 3, stall_ns = 1_000_000_000 }`, true},
		{`fault = { kind = "truncated", after_chunks = 4 }`, false},
		{`fault = { kind = "hang", after_chunks = 4 }`, false},
		{`fault = { kind = "overloaded", after_chunks = 4 }`, false},
		{`fault = { kind = "malformed_sse", after_chunks = 3 }`, false},
		{`fault = { kind = "malformed_json", after_chunks = 3 }`, false},
		{`fault = { kind = "duplicate_fragment", fragment = 0 }`, false},
		{`fault = { kind = "reorder_fragments", fragment = 0 }`, false},
		{`fault = { kind = "timeout" }`, false},
		{`fault = { kind = "rate_limit" }`, false},
		{`fault = { kind = "server_error", status = 529 }`, false},
		{`fault = { kind = "auth_expired" }`, false},
	} {
		t.Run(c.fault, func(t *testing.T) {
			tree, err := scenarios.DecodeTree([]byte("[[script]]\ntext = [\"Let me \", \"look.\"]\n" +
				"tool_calls = [{ id = \"toolu_1\", name = \"bash\", args = [\"{\\\"cmd\\\":\", \" \\\"ls\\\"}\"] }]\n" + c.fault + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			s, errs := ParseScript(tree)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			var digests []string
			for _, f := range forms {
				r := s.RenderAs(&s.Entries[0], "t1.a1", f)
				if (r.Carried != "") != c.whole {
					t.Errorf("%+v: carried %q, want whole %v", f, r.Carried, c.whole)
				}
				digests = append(digests, r.Carried)
			}
			for i := range digests {
				if digests[i] != digests[0] {
					t.Errorf("forms carry different content: %q", digests)
					break
				}
			}
		})
	}
}
