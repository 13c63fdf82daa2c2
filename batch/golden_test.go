package batch

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/golden"
	"github.com/detsim/detsim/scenarios"
)

// goldenScenarios are the determinism references (spec §7.6): their
// digests and parity checksums are checked in and must come out the same
// on every architecture, in every process, forever. A change here is a
// spec-level event: docs/golden-log.md records each one and why.
var goldenScenarios = []string{
	"reference/echo_parity",
	"reproduction/gossip_flap",
	// etcd's raft, wrapped unchanged: its election draws come through
	// the crypto/rand hook (kinds/raft/rafthost/entropy.go), restarts keep or
	// lose the disk, a partition forces an election.
	"raft/leader_isolation",
	"raft/rolling_restart",
}

const goldenFile = "testdata/golden_digests.txt"

// GoldenLine is one scenario's golden record.
func goldenLine(name string, r *Result) string {
	return fmt.Sprintf("%s seed=%d records=%d digest=%s parity=%s", name, r.Scenario.Seed, r.Records, r.Digest, r.Parity)
}

// TestGolden_InProcess runs every reference scenario in this process and
// compares it with the checked-in golden. CI runs it again as a 386
// binary, which is the cross-architecture half of §7.6.
func TestGolden_InProcess(t *testing.T) {
	reg := builtin.Registry()
	var got []string
	for _, name := range goldenScenarios {
		sc, err := scenarios.LoadLibrary(name, reg)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(sc, reg, Config{Out: filepath.Join(t.TempDir(), "b"), Version: "test"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got = append(got, goldenLine(name, r))
	}
	text := strings.Join(got, "\n") + "\n"
	t.Logf("determinism golden on %s/%s", runtime.GOOS, runtime.GOARCH) // shown with a failure: which architecture diverged
	golden.Check(t, goldenFile, text)
}
