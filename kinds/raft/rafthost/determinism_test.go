package rafthost_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/kinds/raft/rafthost"
	"github.com/detsim/detsim/rng"
)

const (
	five = "testdata/five.toml"
	// storm draws election timeouts hundreds of times a second per host.
	storm = "testdata/storm.toml"
)

// TestRun_SameSeedSameBytes_7_6: a raft run is a function of its
// scenario and seed (spec §7.6): twice in one process, byte for byte;
// another seed, another run (the election draws follow the seed).
func TestRun_SameSeedSameBytes_7_6(t *testing.T) {
	a, da := run(t, load(t, five, -1))
	b, db := run(t, load(t, five, -1))
	if !bytes.Equal(a.raw, b.raw) || da != db {
		t.Fatal("two runs of one seed differ")
	}
	if len(a.of("apply", "")) < 1000 {
		t.Fatalf("only %d applies: the run did not replicate", len(a.of("apply", "")))
	}
	c, _ := run(t, load(t, five, 8))
	if bytes.Equal(a.raw, c.raw) {
		t.Fatal("seeds 7 and 8 gave the same run")
	}
	first := func(rs *records) int64 { return rs.of("role_change", "")[0].At }
	if first(a) == first(c) {
		t.Errorf("the first election began at %d under both seeds: the timeouts do not come from the seed", first(a))
	}
}

// TestEntropy_ConcurrentRunsKeepTheirDigests: raft runs stepped at the
// same time in one process, as sweep workers step them, each give the
// digest they give alone. etcd draws election timeouts from the one
// process-wide crypto/rand.Reader; entropy.go must hand each draw to the
// host being stepped and to no other.
func TestEntropy_ConcurrentRunsKeepTheirDigests(t *testing.T) {
	seeds := []int64{1, 2, 3, 4}
	alone := map[int64]string{}
	for _, s := range seeds {
		alone[s] = digest(t, load(t, storm, s))
	}
	got := make([]string, len(seeds))
	var wg sync.WaitGroup
	for i, s := range seeds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := engine.New(load(t, storm, s), registry(), engine.Options{})
			if err != nil {
				t.Error(err)
				return
			}
			// Step by hand so the runs interleave step by step.
			for !e.Done() {
				e.Step()
			}
			got[i] = e.Digest()
		}()
	}
	wg.Wait()
	for i, s := range seeds {
		if got[i] != alone[s] {
			t.Errorf("seed %d: %s stepped beside three others, %s alone", s, got[i], alone[s])
		}
	}
}

// TestEntropy_OtherReadersGetFreshBytes: while raft runs step, a reader
// of crypto/rand elsewhere in the process gets the operating system's
// bytes, never a host's draws: each read differs from every other, and
// the runs' digests are the ones they give alone (no draw was taken
// from them).
func TestEntropy_OtherReadersGetFreshBytes(t *testing.T) {
	want := digest(t, load(t, storm, 5))
	stop := make(chan struct{})
	reads := make(chan [][32]byte)
	go func() {
		var out [][32]byte
		for {
			select {
			case <-stop:
				reads <- out
				return
			default:
			}
			var b [32]byte
			if _, err := rand.Read(b[:]); err != nil {
				t.Error(err)
			}
			out = append(out, b)
		}
	}()
	var got []string
	for range 3 {
		got = append(got, digest(t, load(t, storm, 5)))
	}
	close(stop)
	out := <-reads
	for _, d := range got {
		if d != want {
			t.Errorf("a run beside a crypto/rand reader gave %s, alone %s", d, want)
		}
	}
	if len(out) < 2 {
		t.Fatalf("only %d reads happened during the runs", len(out))
	}
	seen := map[[32]byte]bool{}
	for _, b := range out {
		if seen[b] {
			t.Fatalf("crypto/rand.Read returned the same 32 bytes twice in %d reads", len(out))
		}
		seen[b] = true
	}
}

// TestEntropy_ADrawOutsideLockedFailsTheRun: an election draw that
// reaches crypto/rand while a raft host is stepped but outside
// host.locked (a test-only planted bug: the RawNode made without it)
// is a determinism failure that stops the run — a panic naming etcd's
// function that drew and the host, which the CLI reports as exit 3 and
// a sweep as the seed's error — never a quiet read of the operating
// system's bytes and never a raft_panic record. The process goes on:
// the same scenario without the bug runs after it, as it runs alone.
func TestEntropy_ADrawOutsideLockedFailsTheRun(t *testing.T) {
	want := digest(t, load(t, five, -1))
	rafthost.PlantForTest(t, rafthost.TestBugUnlockedDraw, "n2")
	got := func() (p any) {
		defer func() { p = recover() }()
		digest(t, load(t, five, -1))
		return nil
	}()
	msg, _ := got.(string)
	for _, w := range []string{"determinism failure", "go.etcd.io/raft/v3.", "outside host.locked while n2 was stepped"} {
		if !strings.Contains(msg, w) {
			t.Fatalf("the run ended with %v, want a panic saying %q", got, w)
		}
	}
	_, err := batch.Watch(context.Background(), load(t, five, -1), registry(), nil, nil)
	var pe *batch.PanicError
	if !errors.As(err, &pe) || !strings.Contains(fmt.Sprint(pe.Value), "determinism failure") {
		t.Fatalf("a watched run (sweeps, shrinks) returned %v, want its PanicError", err)
	}
	rafthost.PlantForTest(t, "", "n2")
	if d := digest(t, load(t, five, -1)); d != want {
		t.Errorf("after the failures a run gives %s, alone %s", d, want)
	}
}

// TestEntropy_AReplacedReaderFailsTheRun: crypto/rand.Reader replaced
// after the hook was installed would take the election draws away from
// the seed; the next host call stops the run, saying so.
func TestEntropy_AReplacedReaderFailsTheRun(t *testing.T) {
	e, err := engine.New(load(t, five, -1), registry(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		e.Step()
	}
	hooked := rand.Reader
	rand.Reader = bytes.NewReader(make([]byte, 1<<20))
	defer func() { rand.Reader = hooked }()
	got := func() (p any) {
		defer func() { p = recover() }()
		for range 100 {
			e.Step()
		}
		return nil
	}()
	if msg, _ := got.(string); !strings.Contains(msg, "crypto/rand.Reader was replaced") {
		t.Fatalf("stepping on ended with %v", got)
	}
}

// TestEntropy_InstalledOnlyWithARaftHost: a process that links the raft
// kind but creates no raft host keeps crypto/rand.Reader as Go made it;
// the first raft host installs the hook. Checked in a child process,
// which no other test has run a raft host in.
func TestEntropy_InstalledOnlyWithARaftHost(t *testing.T) {
	if os.Getenv("RAFTHOST_ENTROPY_CHILD") == "1" {
		if kind := fmt.Sprintf("%T", rand.Reader); strings.HasPrefix(kind, "rafthost.") {
			t.Fatalf("crypto/rand.Reader is %s before any raft host", kind)
		}
		rafthost.Kind.New("n1", nil, "member", []string{"n1"}, rng.New(1).Host("n1", "kind"))
		if kind := fmt.Sprintf("%T", rand.Reader); kind != "rafthost.entropy" {
			t.Fatalf("crypto/rand.Reader is %s after a raft host was made", kind)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEntropy_InstalledOnlyWithARaftHost$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RAFTHOST_ENTROPY_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// TestObserveSoon_SameRecordsAsEveryLook: a host that looks at its node
// only when a Ready says the role or leader moved (observeSoon) writes
// the records, in the order, of one that looks after every call and
// every Ready: through slow disks holding Readys back, restarts, a
// partitioned leader, clients' reads and a planted early ack.
func TestObserveSoon_SameRecordsAsEveryLook(t *testing.T) {
	names := []string{"raft/slow_disk_leader", "raft/rolling_restart", "raft/leader_isolation", "raft/clients",
		"raft/bug_ack_before_fsync", "raft/disk_loss", "raft/follower_rejoin_no_prevote"}
	soon := make([]string, len(names))
	for i, name := range names {
		soon[i] = digest(t, loadLibrary(t, name))
	}
	rafthost.ObserveEagerlyForTest(t)
	for i, name := range names {
		if every := digest(t, loadLibrary(t, name)); every != soon[i] {
			t.Errorf("%s: digest %s looking every time, %s looking when a Ready says", name, every, soon[i])
		}
	}
}
