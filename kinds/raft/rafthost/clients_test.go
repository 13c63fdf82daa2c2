package rafthost_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle/verdict"
)

// TestLinearizable_AloneCatchesAStaleRead: a member answering its
// clients' reads from its own store, without ReadIndex (bug =
// "stale_read"), is cut off while the others go on putting; over several
// seeds the linearizable oracle fails and every other raft assertion
// passes, and the same runs without the bug pass everything.
func TestLinearizable_AloneCatchesAStaleRead(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		bug := loadLibrary(t, "raft/bug_stale_read")
		bug.Seed = uint64(seed)
		got, why := outcomes(t, bug)
		failsAlone(t, got, why, "linearizable")
		if !strings.Contains(why, "linearizable: Fail: key c") || !strings.Contains(why, "read") {
			t.Errorf("seed %d: the verdict names no key and no read:%s", seed, why)
		}
		ok := loadLibrary(t, "raft/clients")
		ok.Seed = uint64(seed)
		got, why = outcomes(t, ok)
		failsAlone(t, got, why, "")
	}
}

// TestLinearizable_EvidenceCitesTheWindow: the stale read's verdict
// cites the records of its window's operations: each a client_invoke or
// a client_return, the window's read among them.
func TestLinearizable_EvidenceCitesTheWindow(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b")
	r, err := batch.Run(loadLibrary(t, "raft/bug_stale_read"), registry(), batch.Config{Out: out, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(out, "events.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	rs := parse(t, raw)
	for _, v := range r.Verdicts {
		if v.Name != "linearizable" {
			continue
		}
		if v.Outcome != verdict.Fail || len(v.Evidence) < 3 {
			t.Fatalf("%s with %d records cited: %s", v.Outcome, len(v.Evidence), v.Reason)
		}
		reads := 0
		for _, e := range v.Evidence {
			line, err := strconv.Atoi(strings.TrimPrefix(e.Ref, "events.ndjson#L"))
			if err != nil || line < 1 || line > len(rs.all) {
				t.Fatalf("cites %q", e.Ref)
			}
			r := rs.all[line-1]
			if typ := r.Type(); typ != "client_invoke" && typ != "client_return" {
				t.Errorf("cites line %d, a %s", line, typ)
			}
			if r.Str("op") == "read" {
				reads++
			}
		}
		if reads == 0 {
			t.Errorf("no read cited: %s", v.Reason)
		}
		return
	}
	t.Fatal("no linearizable verdict")
}

// TestReadIndex_RetryPolicyChoosesTheID: a round unanswered for
// read_retry_ns is sent again; with retry = "reuse" (etcd before
// etcd-io/etcd#21399) it carries the id of its first attempt, with
// "fresh" (the default) a new one. n1's reads while it is cut off are
// the rounds retried.
func TestReadIndex_RetryPolicyChoosesTheID(t *testing.T) {
	for _, policy := range []string{"fresh", "reuse"} {
		sc := extendLibrary(t, "retry_"+policy, `
name = "raft_retry"
[base]
extends = "clients.toml"
[[peers]]
id = "n1"
kind = "raft"
kind_config = { campaign_at_ns = 0, clients = { from_ns = 1_000_000_000, every_ns = 100_000_000, keys = 2, reads_percent = 100, retry = "`+policy+`" } }
`)
		rs, _ := run(t, sc)
		var first, same, fresh int
		last := int64(-1)
		for _, r := range rs.of("read_index", "n1") {
			id := r.Num("id")
			switch {
			case r.Event["retry"] != true:
				first++
			case id == last:
				same++
			default:
				fresh++
			}
			last = id
		}
		if first == 0 || same+fresh == 0 {
			t.Fatalf("%s: %d rounds, %d retries", policy, first, same+fresh)
		}
		if policy == "reuse" && fresh > 0 || policy == "fresh" && same > 0 {
			t.Errorf("%s: %d retries with the round's id, %d with a fresh one", policy, same, fresh)
		}
	}
}

// TestClients_HistoryIsRecorded: every client operation is a
// client_invoke, and each answer a client_return of the same request:
// ok (a read with its value), fail, or unknown at the timeout.
func TestClients_HistoryIsRecorded(t *testing.T) {
	rs, _ := run(t, loadLibrary(t, "raft/clients"))
	invoked := map[string]record{}
	for _, r := range rs.of("client_invoke", "") {
		invoked[r.Str("req")] = r
	}
	results := map[string]int{}
	for _, r := range rs.of("client_return", "") {
		inv, ok := invoked[r.Str("req")]
		if !ok || inv.Str("client") != r.Str("client") || inv.Host != r.Host {
			t.Fatalf("an answer to no invoke: %s", r.Raw)
		}
		results[inv.Str("op")+" "+r.Str("result")]++
	}
	for _, want := range []string{"put ok", "read ok", "read unknown"} {
		if results[want] == 0 {
			t.Errorf("no %s: %v", want, results)
		}
	}
	if len(invoked) < 500 {
		t.Errorf("%d operations", len(invoked))
	}
}

// TestClone_ReplaysClients: a checkpoint restored mid-run, with clients
// waiting on ReadIndex rounds and puts, runs on to the straight run's
// digest.
func TestClone_ReplaysClients(t *testing.T) {
	sc := loadLibrary(t, "raft/clients")
	sc.DurationNs = 14_000_000_000
	checkReplays(t, sc, 3000, 2, func(n int) []int { return []int{n - 1, n / 2, 1} })
}
