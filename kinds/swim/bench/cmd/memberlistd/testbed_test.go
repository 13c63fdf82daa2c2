package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/gobin"
	"github.com/detsim/detsim/kinds/swim/testbed"
	"github.com/detsim/detsim/scenarios"
)

// TestTestbed_MemberlistOnTheKernel: unmodified memberlist as the
// testbed's daemons (detsim testbed --impl memberlist) on the testbed's
// own test scenario — every mutation kind it applies — writes a testbed
// bundle that verifies, with records from every peer.
func TestTestbed_MemberlistOnTheKernel(t *testing.T) {
	if err := testbed.Preflight(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	sc, err := scenarios.Load("../../../testbed/testdata/three.toml", builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "b")
	res, err := testbed.Run(context.Background(), sc, testbed.Config{Out: out, Impl: testbed.ImplMemberlist, Daemon: gobin.Build(t, "."), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupted != "" {
		t.Fatalf("interrupted: %s", res.Interrupted)
	}
	if problems, err := bundle.Verify(out); err != nil || len(problems) > 0 {
		t.Fatalf("verify: %v %v", problems, err)
	}
	if res.Manifest.Testbed == nil || res.Manifest.Testbed.Impl != testbed.ImplMemberlist {
		t.Errorf("manifest testbed %+v", res.Manifest.Testbed)
	}
	snaps := map[string]bool{}
	if err := bundle.EachSnapshot(out, res.Manifest, func(r bundle.SnapshotRecord) error {
		snaps[r.Path] = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if !snaps["snapshots/"+id+"/0.json"] {
			t.Errorf("no snapshot of %s (the bundle has %v)", id, snaps)
		}
	}
	if res.Records < 100 {
		t.Errorf("%d records", res.Records)
	}
}
