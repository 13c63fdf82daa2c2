package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// TestMeasure_CountsWhatTheRecordsSay: on a simulated run of the
// reproduction, measure's refutations and largest ping are what a plain
// count over events.ndjson finds, and its flap and dead flags are the
// run's own verdicts.
func TestMeasure_CountsWhatTheRecordsSay(t *testing.T) {
	reg := builtin.Registry()
	repro, err := scenarios.Resolve(Reproduction, reg)
	if err != nil {
		t.Fatal(err)
	}
	run := *repro
	run.Seed = 7
	out := filepath.Join(t.TempDir(), "b")
	res, err := batch.Run(&run, reg, batch.Config{Out: out, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := measure(out, repro, run.DurationNs)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "events.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]int{}
	var largest int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, `"type":"self_incarnation_bump"`) {
			want[strField(line, `"host_id":"`)]++
		}
		if strings.Contains(line, `"type":"message_sent"`) && strings.Contains(line, `"message":"ping"`) {
			largest = max(largest, field(line, `"bytes":`))
		}
	}
	for _, p := range Peers {
		if got.Refutations[p] != want[p] {
			t.Errorf("%s refuted %d times, the records say %d", p, got.Refutations[p], want[p])
		}
	}
	if got.LargestPing != largest || largest == 0 {
		t.Errorf("largest ping %d, the records say %d", got.LargestPing, largest)
	}
	var flapped, dead bool
	for i, v := range res.Verdicts {
		failed := v.Outcome == "Fail"
		switch repro.Assertions[i].Kind {
		case "no_flap_while_probes_ok":
			flapped = flapped || failed
		case "no_dead_when_probes_ok":
			dead = dead || failed
		}
	}
	if got.Flapped != flapped || got.DeadProbed != dead {
		t.Errorf("flapped %v dead %v, the run's verdicts say %v %v", got.Flapped, got.DeadProbed, flapped, dead)
	}
}

func TestVictimAndSpread(t *testing.T) {
	if v := (Run{Refutations: map[string]int{"fra": 3, "sgp": 3, "orch": 1}}).Victim(); v != "fra=sgp" {
		t.Errorf("victim %q", v)
	}
	if v := (Run{Refutations: map[string]int{}}).Victim(); v != "" {
		t.Errorf("victim of nothing %q", v)
	}
	if s := spread([]int{5, 1, 9}); s != "5 [1, 9]" {
		t.Errorf("spread %q", s)
	}
	if s := spread([]int{2, 5}); s != "3.5 [2, 5]" {
		t.Errorf("spread of two %q", s)
	}
}
