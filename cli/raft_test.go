package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRaft_ByNameAndBadConfig: a kind's library runs by name like the
// core's (`detsim --batch raft/leader_isolation`, `detsim sweep
// raft_partitions`), and a bad raft kind_config — an unknown key,
// election ticks not above heartbeat ticks, a proposal to an undeclared
// peer — is exit 2 naming each field, before any output is made.
func TestRaft_ByNameAndBadConfig(t *testing.T) {
	dir := t.TempDir()
	if r := runIn("--batch", "raft/leader_isolation", "--out", filepath.Join(dir, "li")); r.code != 0 || !strings.Contains(r.stdout, "8 pass, 0 fail") {
		t.Errorf("--batch raft/leader_isolation: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runIn("sweep", "raft_partitions", "--seeds", "1", "--corpus", ""); r.code != 0 {
		t.Errorf("sweep raft_partitions: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	bad := filepath.Join("..", "kinds", "raft", "rafthost", "testdata", "bad_config.toml")
	out := filepath.Join(dir, "out")
	r := runIn("--batch", bad, "--out", out)
	if r.code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s", r.code, exitUsage, r.stderr)
	}
	for _, want := range []string{
		"peers[n1].kind_config.election_ticks: must be greater than heartbeat_ticks (1), got 1",
		"peers[n1].kind_config.max_inflight: unknown key",
		`peers[n2].kind_config.proposals[0].to: "n7" is not a declared peer`,
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused run made %s", out)
	}
}
