package rafthost_test

import (
	"bytes"
	"crypto/rand"
	"sync"
	"testing"

	"github.com/detsim/detsim/engine"
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
