package rafthost_test

import (
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/raft/rafthost"
	"github.com/detsim/detsim/scenarios"
)

// In five.toml n3 (the leader) crashes at 12 s and restarts at 13 s with
// preserve_state = true; n5 crashes at 14 s and restarts at 15 s with
// preserve_state = false.

// TestRestart_PreserveStateIsCrashAndRecover: a restart that keeps the
// disk finds its log, HardState and state machine there (etcd replaying
// its WAL and backend), and loses what only memory held: it comes back a
// follower that knows no leader, and applies nothing twice.
func TestRestart_PreserveStateIsCrashAndRecover(t *testing.T) {
	rs, _ := run(t, load(t, five, -1))
	starts := rs.of("node_start", "n3")
	if len(starts) != 2 {
		t.Fatalf("n3 started %d times, want 2:\n%v", len(starts), starts)
	}
	back := starts[1]
	if back.Str("disk") != "recovered" || back.Num("term") < 1 || back.Num("last_index") < 100 || back.Num("applied") < 100 {
		t.Fatalf("n3's restart did not find its disk: %s", back.Raw)
	}
	var before int64
	for _, r := range rs.of("apply", "n3") {
		if r.At < back.At {
			before = max(before, r.Num("index"))
		} else if r.Num("index") <= before {
			t.Fatalf("n3 applied index %d again after its restart (it had applied %d): %s", r.Num("index"), before, r.Raw)
		}
	}
	if before != back.Num("applied") {
		t.Errorf("n3 had applied %d before the crash, its disk says %d", before, back.Num("applied"))
	}
	var lead string
	for _, r := range rs.of("leader_change", "n3") {
		if r.At > back.At {
			lead = r.Str("lead")
			break
		}
	}
	if lead == "" || lead == "n3" {
		t.Errorf("n3 after its restart followed %q first, want another member", lead)
	}
}

// TestRestart_WithoutPreserveStateLosesTheDisk: a fresh life has an empty
// disk; its leader, which still believes it holds the log, tells it a
// commit index past its end, and etcd raft panics ("Was the raft log
// corrupted, truncated, or lost?") — as a member whose data directory
// was wiped does. The panic is a record and a halted host; the run goes
// on to its end.
func TestRestart_WithoutPreserveStateLosesTheDisk(t *testing.T) {
	rs, _ := run(t, load(t, five, -1))
	starts := rs.of("node_start", "n5")
	if len(starts) != 2 || starts[1].Str("disk") != "empty" || starts[1].Num("term") != 0 || starts[1].Num("last_index") != 0 {
		t.Fatalf("n5's fresh life did not start on an empty disk: %v", starts)
	}
	panics := rs.of("raft_panic", "n5")
	if len(panics) != 1 || !strings.Contains(panics[0].Str("panic"), "Was the raft log corrupted, truncated, or lost?") {
		t.Fatalf("raft_panic records of n5: %v", panics)
	}
	if panics[0].Str("during") == "" {
		t.Errorf("the panic does not say what call it happened in: %s", panics[0].Raw)
	}
	for _, r := range rs.all {
		if r.Host == "n5" && r.Kind == "raft" && r.At > panics[0].At {
			t.Fatalf("n5 recorded after it panicked: %s", r.Raw)
		}
	}
	if last := rs.all[len(rs.all)-1]; last.At < 19_000_000_000 {
		t.Errorf("the run stopped at %d after the panic", last.At)
	}
}

// TestPanic_IsAFailVerdictNamingTheTextAndTheRecord: etcd raft's panic
// in raft/disk_loss is a Fail of no_raft_panic — never a crashed run —
// whose reason carries the panic's text, the member, the time and the
// input it was handling, and whose evidence is the raft_panic record
// (the stepper's g L<line> stands on its step).
func TestPanic_IsAFailVerdictNamingTheTextAndTheRecord(t *testing.T) {
	v := panicFail(t, verdicts(t, loadLibrary(t, "raft/disk_loss")), "n5 panicked at ", " during MsgHeartbeat from n1: ", "Was the raft log corrupted, truncated, or lost?")
	if v == nil {
		t.Fatal("raft/disk_loss declares no no_raft_panic")
	}
	if len(v.Evidence) != 1 || !strings.HasPrefix(v.Evidence[0].Ref, "events.ndjson#L") {
		t.Errorf("evidence %+v, want the raft_panic record", v.Evidence)
	}
}

// panicFail is the first no_raft_panic verdict of vs, nil for none; it
// must be a Fail whose reason says each of wants.
func panicFail(t *testing.T, vs []verdict.Verdict, wants ...string) *verdict.Verdict {
	t.Helper()
	for i := range vs {
		v := &vs[i]
		if v.Kind != "no_raft_panic" {
			continue
		}
		if v.Outcome != verdict.Fail {
			t.Fatalf("%s: %s: %s", v.Name, v.Outcome, v.Reason)
		}
		for _, want := range wants {
			if !strings.Contains(v.Reason, want) {
				t.Errorf("reason %q does not say %q", v.Reason, want)
			}
		}
		return v
	}
	return nil
}

// restartedAfterApplyingAhead is raft/bug_apply_before_commit with n1,
// which has applied its own uncommitted puts while cut off, crashed at
// 10.5 s and restarted on its disk at 11 s (and, when twice, crashed at
// 12 s and restarted at 13 s again). Its disk's applied index is past its
// HardState's commit, and etcd raft's NewRawNode panics in appliedTo.
func restartedAfterApplyingAhead(t *testing.T, twice bool) *scenarios.Scenario {
	t.Helper()
	src := `
name = "raft_restart_after_applying_ahead"

[base]
extends = "bug_apply_before_commit.toml"

# A scenario's mutations replace its base's: the cut, as the base has it.
[[mutations]]
at_ns = 10_000_000_000
kind = "Partition"
peers_a = ["n1"]
peers_b = ["n2", "n3", "n4", "n5"]

[[mutations]]
at_ns = 20_000_000_000
kind = "Heal"

[[mutations]]
at_ns = 10_500_000_000
kind = "PeerKill"
peer = "n1"

[[mutations]]
at_ns = 11_000_000_000
kind = "PeerResurrect"
peer = "n1"
preserve_state = true
`
	if twice {
		src += `
[[mutations]]
at_ns = 12_000_000_000
kind = "PeerKill"
peer = "n1"

[[mutations]]
at_ns = 13_000_000_000
kind = "PeerResurrect"
peer = "n1"
preserve_state = true
`
	}
	lib := hosts.LibraryOf(rafthost.Kind)
	sc, err := scenarios.Parse("raft/restart_after_applying_ahead.toml", []byte(src), registry(), func(p string) ([]byte, error) { return fs.ReadFile(lib, path.Clean(p)) })
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestPanic_DuringARestartIsRecordedAndHalts: a panic inside etcd raft
// while a life begins (hosts.Restarter.Started, which returns nothing)
// is still a raft_panic record and a halted host, at the host's next
// call, and so a Fail of no_raft_panic with the panic's text.
func TestPanic_DuringARestartIsRecordedAndHalts(t *testing.T) {
	sc := restartedAfterApplyingAhead(t, false)
	panicFail(t, verdicts(t, sc), "n1 panicked at ", " during restart: ", "is out of range")
	rs, _ := run(t, restartedAfterApplyingAhead(t, false))
	panics := rs.of("raft_panic", "n1")
	if len(panics) != 1 {
		t.Fatalf("raft_panic records of n1: %v", panics)
	}
	for _, r := range rs.all {
		if r.Host == "n1" && r.Kind == "raft" && r.At > panics[0].At {
			t.Fatalf("n1 recorded after it panicked: %s", r.Raw)
		}
	}
}

// TestPanic_ARestartStartsAfresh: a member that panicked and is
// restarted on its disk starts a new life — a new RawNode over the same
// disk — and so panics again, and says so, rather than staying silently
// dead.
func TestPanic_ARestartStartsAfresh(t *testing.T) {
	rs, _ := run(t, restartedAfterApplyingAhead(t, true))
	panics := rs.of("raft_panic", "n1")
	if len(panics) != 2 {
		t.Fatalf("n1 panicked at each of its two restarts; raft_panic records: %v", panics)
	}
	for _, p := range panics {
		if p.Str("during") != "restart" || !strings.Contains(p.Str("panic"), "is out of range") {
			t.Errorf("not the restart's panic: %s", p.Raw)
		}
	}
	if panics[1].At < 13_000_000_000 {
		t.Errorf("the second panic is at %d, before the second restart", panics[1].At)
	}
}
