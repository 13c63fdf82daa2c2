// Package bundleinfo reads what the comparison tools (schemadiff,
// calibrate) need from a bundle's manifest.json, including members the
// bundle package does not know yet: whether the bundle was recorded live
// (by `detsim live` or swimd) or simulated, and whether it ends early.
//
// It decodes the manifest loosely on purpose. A live bundle carries
// members the simulator's own Manifest type may not have when this code
// is built ("live", "interrupted", ...); an unknown member is kept, never
// an error, so a newer bundle still reads.
package bundleinfo

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/internal/safefile"
)

// Info is the part of a manifest the comparison tools read.
type Info struct {
	// Live says the bundle was recorded by a real runtime, not the
	// simulator; Why says which manifest member says so (or that none
	// does).
	Live bool
	Why  string
	// DurationNs is the manifest's duration_ns: how far the bundle's
	// record reaches.
	DurationNs int64
	// Truncated and Interrupted are the manifest's reasons the run ended
	// before its scenario's end, or "": "truncated" (a cap), and
	// "interrupted" (a live run stopped early, by Ctrl-C). A member that
	// is a bool true reads as "yes".
	Truncated, Interrupted string
	// Members is every top-level member, undecoded.
	Members map[string]json.RawMessage
	// Unobserved is what a production executor declares it cannot see
	// (a testbed bundle's "testbed"."unobserved"), or nil.
	Unobserved []bundle.Unobserved
	// TestbedEdges are the edges a testbed run realised, or nil.
	TestbedEdges []bundle.TestbedEdge
	// Testbed is the whole testbed record, or nil when the bundle has
	// none: with the delay line's lateness and the machine's load when
	// the run recorded them (nil in a bundle made before the fields).
	Testbed *bundle.Testbed
}

// Cut says why the bundle ends before its scenario did, or "".
func (in Info) Cut() string {
	var parts []string
	if in.Truncated != "" {
		parts = append(parts, "truncated: "+in.Truncated)
	}
	if in.Interrupted != "" {
		parts = append(parts, "interrupted: "+in.Interrupted)
	}
	return strings.Join(parts, "; ")
}

// Read reads dir's manifest.json.
//
// A bundle is live when its manifest has "live": true, or "runtime" other
// than "sim"/"simulator"/"detsim", or "clock" other than "virtual" (every
// simulated bundle says "virtual"), or any "mode" (a simulated bundle has
// none; "live", or "witness" for memberlist recorded by kinds/swim/bench/, whose
// clock is virtual). Whichever of these the runtime writes, the rule
// finds it.
func Read(dir string) (Info, error) {
	b, err := safefile.ReadFileIn(dir, bundle.ManifestFile, bundle.MaxManifestBytes)
	if err != nil {
		return Info{}, fmt.Errorf("%s: %w", dir, err)
	}
	var in Info
	if err := json.Unmarshal(b, &in.Members); err != nil {
		return Info{}, fmt.Errorf("%s: %s is not a JSON object: %w", dir, bundle.ManifestFile, err)
	}
	if in.Members == nil {
		return Info{}, fmt.Errorf("%s: %s is not a JSON object", dir, bundle.ManifestFile)
	}
	if raw, ok := in.Members["duration_ns"]; ok {
		if err := json.Unmarshal(raw, &in.DurationNs); err != nil {
			return Info{}, fmt.Errorf("%s: %s: duration_ns is not an integer", dir, bundle.ManifestFile)
		}
	}
	if raw, ok := in.Members["testbed"]; ok && string(raw) != "null" {
		var tb bundle.Testbed
		if err := json.Unmarshal(raw, &tb); err != nil {
			return Info{}, fmt.Errorf("%s: %s: testbed is not a testbed record: %w", dir, bundle.ManifestFile, err)
		}
		in.Unobserved, in.TestbedEdges, in.Testbed = tb.Unobserved, tb.Edges, &tb
	}
	in.Truncated = reason(in.Members["truncated"])
	in.Interrupted = reason(in.Members["interrupted"])

	in.Why = `manifest has no "live": true, no "mode", no "runtime" but the simulator's, and "clock": "virtual"`
	var live bool
	var runtime, clock, mode string
	if json.Unmarshal(in.Members["live"], &live) == nil && live {
		in.Live, in.Why = true, `manifest "live": true`
	} else if json.Unmarshal(in.Members["mode"], &mode) == nil && mode != "" {
		in.Live, in.Why = true, fmt.Sprintf("manifest \"mode\": %q", mode)
	} else if json.Unmarshal(in.Members["runtime"], &runtime) == nil && runtime != "" &&
		runtime != "sim" && runtime != "simulator" && runtime != "detsim" {
		in.Live, in.Why = true, fmt.Sprintf("manifest \"runtime\": %q", runtime)
	} else if json.Unmarshal(in.Members["clock"], &clock) == nil && clock != "" && clock != "virtual" {
		in.Live, in.Why = true, fmt.Sprintf("manifest \"clock\": %q", clock)
	}
	return in, nil
}

// reason reads a manifest member that says why a run ended early: a
// non-empty string, true, or an object (its JSON), else "".
func reason(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		if b {
			return "yes"
		}
		return ""
	}
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}
