package provider_test

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/kinds/agent/tool"
	"github.com/detsim/detsim/rng"
	"github.com/detsim/detsim/scenarios"
)

// FuzzScript feeds any TOML to the provider's and the tool's kind_config
// parsers: each either accepts it or returns errors naming a
// kind_config field, and never panics. An accepted script renders every
// entry, and every fault its catalog can place at any place gives a
// config the parser accepts again.
func FuzzScript(f *testing.F) {
	for _, s := range []string{
		`[[script]]
text = ["a", "b"]
tool_calls = [{ id = "toolu_1", name = "bash", args = ["{\"cmd\":", "\"ls\"}"] }]
fault = { kind = "reorder_fragments", fragment = 0 }`,
		`steps = ["plan"]
max_chunk_bytes = 4
[[script]]
step = "plan"
text = ["abcd"]
fault = { kind = "oversized", after_chunks = 2, bytes = 9 }`,
		`script = [{ fault = { kind = "rate_limit", retry_after_ns = 1 } }, { fault = { kind = "server_error", status = 529 } }]`,
		`script = [{ fault = { kind = "stall", after_chunks = 0, stall_ns = 1 } }, { fault = { kind = "hang" } }, { fault = { kind = "nope" } }]`,
		`effects = [{ effect = "partial_then_fail", exit_code = 3, output_bytes = 10 }, { effect = "huge_output" }]`,
		`effects = [{ effect = "success", exit_code = 2 }]`,
		`script = "x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(fuzzScript)
}

func fuzzScript(t *testing.T, data []byte) {
	peers := []string{"agent", "model", "shell"}
	{
		if len(data) > 4096 {
			return // a kind_config is small; keep each input cheap
		}
		cfg, err := scenarios.DecodeTree(data)
		if err != nil {
			return // not TOML: the scenario loader reports it
		}
		for _, errs := range [][]string{fieldsOf(provider.Kind.Validate(cfg, peers)), fieldsOf(tool.Kind.Validate(cfg, peers))} {
			for _, field := range errs {
				if !strings.HasPrefix(field, "kind_config") {
					t.Fatalf("error on field %q, not under kind_config", field)
				}
			}
		}
		if len(provider.Kind.Validate(cfg, peers)) == 0 {
			s, _ := provider.ParseScript(cfg)
			for i := range s.Entries {
				r := s.Render(&s.Entries[i], "t1.a1")
				if !r.Never && len(r.Pieces) == 0 {
					t.Fatalf("entry %d renders no piece", i)
				}
				if r.Status == 0 || len(r.Head()) == 0 {
					t.Fatalf("entry %d: status %d", i, r.Status)
				}
			}
			checkCatalog(t, "provider", cfg, peers)
		}
		if len(tool.Kind.Validate(cfg, peers)) == 0 {
			checkCatalog(t, "tool", cfg, peers)
		}
	}
}

func checkCatalog(t *testing.T, tag string, cfg map[string]any, peers []string) {
	k := provider.Kind
	if tag == "tool" {
		k = tool.Kind
	}
	cat := hosts.FaultsOf(k)
	n := cat.Places(cfg)
	if n > 64 {
		n = 64
	}
	for place := range n {
		for _, f := range cat.Kinds {
			if !cat.Fits(cfg, place, f) {
				continue
			}
			out := cat.Apply(cfg, place, f, rng.New(uint64(place)).Host("fuzz", f))
			if errs := k.Validate(out, peers); len(errs) > 0 {
				t.Fatalf("%s fault %s at place %d gives an invalid config: %v", tag, f, place, errs)
			}
		}
	}
}

func fieldsOf[E interface{ Error() string }](errs []E) []string {
	var out []string
	for _, e := range errs {
		field, _, _ := strings.Cut(e.Error(), ": ")
		out = append(out, field)
	}
	return out
}
