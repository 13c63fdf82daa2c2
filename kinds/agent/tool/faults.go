package tool

import (
	"slices"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/kindcfg"
	"github.com/detsim/detsim/rng"
)

// FaultKinds are the effects a fault schedule can turn a success into:
// every effect but success, in catalog order.
var FaultKinds = Effects[1:]

// Catalog is the tool's fault catalog for seeded fault schedules
// (docs/sweeps.md, [space.faults]): a place is an effects entry whose
// effect is success (written or by default), and any fault effect can go
// there, replacing it. Parameters are drawn from the schedule's
// substream:
//
//	exit_nonzero       exit_code 1 … 255
//	huge_output        output_bytes 64 KiB … 4 MiB (the agent caps at 16 KiB)
//	binary_output      output_bytes 1 … 4 KiB
//	partial_then_fail  exit_code 1 … 255
//
// and every effect keeps the entry's duration_ns.
var Catalog = &hosts.FaultCatalog{
	Kinds:  FaultKinds,
	Places: func(config map[string]any) int { return len(effectTables(config)) },
	Fits: func(config map[string]any, place int, kind string) bool {
		ts := effectTables(config)
		if place < 0 || place >= len(ts) || !slices.Contains(FaultKinds, kind) {
			return false
		}
		e, _ := ts[place]["effect"].(string)
		return e == "" || e == Success
	},
	Apply: func(config map[string]any, place int, kind string, r *rng.Stream) map[string]any {
		out := kindcfg.Clone(config)
		t := effectTables(out)[place]
		t["effect"] = kind
		delete(t, "output_bytes")
		delete(t, "exit_code")
		between := func(lo, hi int64) int64 { return lo + int64(r.Below(uint64(hi-lo)+1)) }
		switch kind {
		case ExitNonzero, PartialFail:
			t["exit_code"] = between(1, 255)
		case HugeOutput:
			t["output_bytes"] = between(64<<10, 4<<20)
		case BinaryOutput:
			t["output_bytes"] = between(1, 4<<10)
		}
		return out
	},
}

func effectTables(config map[string]any) []map[string]any {
	return kindcfg.TableList(config, "effects")
}
