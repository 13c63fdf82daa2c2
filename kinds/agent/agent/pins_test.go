package agent_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/golden"
	"github.com/detsim/detsim/property"
	"github.com/detsim/detsim/sweep"
)

// TestPins_AgentSeedsAreTheirPropertyNow: a pinned seed of an agent
// property (scenarios/regression/agent_faults*-N.toml) is that seed's
// scenario as the property defines it now — its assertions, fault
// draws and mutations —, so a pin cannot keep replaying an old
// definition (the pins had 7 assertions when the property had 15).
// Replaying a pin compares its run digest (go test ./sweep), and every
// provider response_end carries the SHA-256 of the bytes served, so the
// digest holds what was served, not only its size. With -update the
// stale pins are rewritten from the property and re-pinned
// (sweep.Repin): say why in docs/golden-log.md.
func TestPins_AgentSeedsAreTheirPropertyNow(t *testing.T) {
	reg := builtin.Registry()
	files, err := filepath.Glob("../../../scenarios/regression/agent_*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no agent pins: %v", err)
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		h, ok := sweep.ReadPinHeader(data)
		if !ok {
			continue
		}
		p, err := property.LoadLibrary(h.Property, reg)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		sc, err := p.Scenario(h.Seed, reg)
		if err != nil {
			t.Fatal(err)
		}
		c := *sc
		c.Expect = ""
		want := c.TOML()
		head, body, _ := strings.Cut(string(data), "\n\n")
		if bytes.Equal([]byte(body), want) {
			continue
		}
		if !golden.Updating() {
			t.Errorf("%s is stale: seed %d of %s is not that scenario now (%d assertions; the property's seed has %d); refresh it with\n\tgo test ./kinds/agent/agent -run TestPins_AgentSeedsAreTheirPropertyNow -update",
				path, h.Seed, h.Property, strings.Count(body, "[[assertions]]"), len(sc.Assertions))
			continue
		}
		if err := os.WriteFile(path, append([]byte(head+"\n\n"), want...), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := sweep.Repin(context.Background(), path, reg)
		if err != nil {
			t.Fatalf("re-pinning %s: %v", path, err)
		}
		t.Logf("re-pinned %s: failing %v", path, r.Outcome.Failing())
	}
}
