package provider

import (
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/kindcfg"
	"github.com/detsim/detsim/rng"
)

// Catalog is the provider's fault catalog for seeded fault schedules
// (docs/sweeps.md, [space.faults]): a place is a script entry without a
// fault of its own, and every kind of FaultKinds can go there when the
// entry's shape allows it (the fragment faults need args fragments).
// Parameters are drawn from the schedule's substream within ranges that
// straddle the agent's default deadlines and bounds, so a seed may land
// either side of each:
//
//	rate_limit          retry_after_ns    0.5 s … 8 s
//	server_error        status            500, 502, 503 or 529
//	stall               stall_ns          1 s … 12 s (idle deadline 5 s)
//	oversized           bytes             16 KiB … 1 MiB (max_response_bytes 256 KiB)
//	after_chunks (overloaded, stall, hang, truncated, malformed_*, oversized)
//	                                      0 … events − 1
//	duplicate_fragment  fragment          0 … fragments − 1
//	reorder_fragments   fragment          0 … fragments − 2
var Catalog = &hosts.FaultCatalog{
	Kinds:  FaultKinds,
	Places: func(config map[string]any) int { return len(entries(config)) },
	Fits: func(config map[string]any, place int, kind string) bool {
		es := entries(config)
		if place < 0 || place >= len(es) {
			return false
		}
		if _, has := es[place]["fault"]; has {
			return false
		}
		switch kind {
		case FaultDuplicateFrag:
			return fragments(config, place) >= 1
		case FaultReorderFrags:
			return fragments(config, place) >= 2
		}
		return true
	},
	Apply: applyFault,
}

func entries(config map[string]any) []map[string]any { return kindcfg.TableList(config, "script") }

// parsed is entry place of a valid config, as the provider reads it.
func parsed(config map[string]any, place int) Entry {
	s, _ := ParseScript(config)
	if place < len(s.Entries) {
		return s.Entries[place]
	}
	return Entry{}
}

func fragments(config map[string]any, place int) int {
	e := parsed(config, place)
	n := 0
	for _, u := range e.Tools {
		n += len(u.Args)
	}
	return n
}

func between(r *rng.Stream, lo, hi int64) int64 { return lo + int64(r.Below(uint64(hi-lo)+1)) }

func applyFault(config map[string]any, place int, kind string, r *rng.Stream) map[string]any {
	e := parsed(config, place)
	events := int64(eventCount(&e))
	f := map[string]any{"kind": kind}
	switch kind {
	case FaultRateLimit:
		f["retry_after_ns"] = between(r, 500_000_000, 8_000_000_000)
	case FaultServerError:
		f["status"] = []int64{500, 502, 503, 529}[r.Below(4)]
	case FaultStall:
		f["after_chunks"] = between(r, 0, events-1)
		f["stall_ns"] = between(r, 1_000_000_000, 12_000_000_000)
	case FaultOversized:
		f["after_chunks"] = between(r, 0, events-1)
		s, _ := ParseScript(config)
		hi := min(1<<20, MaxOversizedEvents*s.MaxChunkBytes)
		f["bytes"] = between(r, min(16<<10, hi), hi)
	case FaultOverloaded, FaultHang, FaultTruncated, FaultMalformedSSE, FaultMalformedJSON:
		f["after_chunks"] = between(r, 0, events-1)
	case FaultDuplicateFrag:
		f["fragment"] = between(r, 0, int64(fragments(config, place))-1)
	case FaultReorderFrags:
		f["fragment"] = between(r, 0, int64(fragments(config, place))-2)
	}
	out := kindcfg.Clone(config)
	entries(out)[place]["fault"] = f
	return out
}
