//go:build raft36

package raft36

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/kinds/raft/rafthost/raftseam"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/sweep"
)

// TestRegression_StaleReadReplays: the seeds `detsim sweep
// raft_read_pauses_reuse` found against raft v3.6.0 (regression/, the
// sweep's pin and its shrunk form) still fail linearizable when replayed
// on this build, and pass with the fresh-id read loop of
// etcd-io/etcd#21399: the failure is the reused request id meeting
// v3.6's readOnly (docs/raft.md, "etcd-io/etcd#20418, found again").
func TestRegression_StaleReadReplays(t *testing.T) {
	if raftseam.Version != "v3.6.0" {
		t.Fatalf("built against raft %s", raftseam.Version)
	}
	reg := builtin.Registry()
	files, _ := filepath.Glob("regression/*.toml")
	if len(files) == 0 {
		t.Fatal("no pinned seed in regression/")
	}
	for _, f := range files {
		for _, retry := range []string{"reuse", "fresh"} {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src := strings.ReplaceAll(string(data), `retry = "reuse"`, `retry = "`+retry+`"`)
			sc, err := scenarios.Parse(f, []byte(src), reg, os.ReadFile)
			if err != nil {
				t.Fatal(err)
			}
			o, err := sweep.RunScenario(context.Background(), sc, reg)
			if err != nil {
				t.Fatal(err)
			}
			failed := slices.Contains(o.Failing(), "linearizable")
			if failed != (retry == "reuse") {
				t.Errorf("%s, retry %s: failing %v", f, retry, o.Failing())
			}
		}
	}
}
