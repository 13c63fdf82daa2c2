package shrink

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

func planted(t *testing.T) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Load("testdata/planted.toml", builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestShrink_PlantedFailureReachesItsMinimalForm: of five peers, four
// mutations, three link entries, two snapshots, two assertions, noise and
// 30 s, only e, one peer pinging it, the kill and the first seconds
// matter.
func TestShrink_PlantedFailureReachesItsMinimalForm(t *testing.T) {
	reg := builtin.Registry()
	var steps []Step
	res, err := Shrink(context.Background(), planted(t), reg, Options{Progress: func(s Step) { steps = append(steps, s) }})
	if err != nil {
		t.Fatal(err)
	}
	sc := res.Scenario
	var ids []string
	for _, p := range sc.Peers {
		ids = append(ids, p.ID)
		if len(p.KindConfig) != 0 {
			t.Errorf("%s keeps kind_config %v", p.ID, p.KindConfig)
		}
	}
	if len(ids) != 2 || !slices.Contains(ids, "e") {
		t.Errorf("peers %v, want e and one other", ids)
	}
	if len(sc.Mutations) != 1 || sc.Mutations[0].Kind != network.PeerKill || sc.Mutations[0].Peer != "e" {
		t.Errorf("mutations %+v, want only the kill of e", sc.Mutations)
	}
	if len(sc.Assertions) != 1 || sc.Assertions[0].Name != "no_delivery_drops" || res.Assert != "no_delivery_drops" {
		t.Errorf("assertions %v", sc.Assertions)
	}
	if len(sc.Snapshots) != 0 || res.After.Links != 0 || len(sc.Edges()) != 2 {
		t.Errorf("snapshots %v, declared links %d, edges %d: want none, none (a full mesh), 2", sc.Snapshots, res.After.Links, len(sc.Edges()))
	}
	if sc.DurationNs > 6_000_000_000 || sc.DurationNs <= 5_000_000_000-1 {
		t.Errorf("duration %d ns, want just past the kill at 5 s", sc.DurationNs)
	}
	if d := sc.DefaultLink; d.JitterStddevNs != 0 || d.LossProbPPM != 0 || d.ReorderProbPPM != 0 {
		t.Errorf("noise left: %+v", d)
	}
	if res.Before.Peers != 5 || res.Before.Mutations != 4 || res.Before.Links != 3 || res.After.Bytes >= res.Before.Bytes/2 {
		t.Errorf("before %v after %v", res.Before, res.After)
	}
	if res.Exhausted || res.Stopped || res.Runs != len(steps) || res.Runs > 200 {
		t.Errorf("runs %d, steps %d, exhausted %v", res.Runs, len(steps), res.Exhausted)
	}
	kept := 0
	for _, s := range steps {
		if s.Kept {
			kept++
		}
	}
	if kept != len(res.Changes) || kept == 0 {
		t.Errorf("%d kept steps, %d changes", kept, len(res.Changes))
	}
	// The written scenario is valid and still fails the same way.
	back, err := parse(res.TOML, reg)
	if err != nil {
		t.Fatal(err)
	}
	j, err := run(context.Background(), back, reg, nil, false)
	if err != nil || !j.failed("no_delivery_drops") {
		t.Errorf("the result does not fail: %v %v", j.verdicts, err)
	}
}

func TestShrink_IsDeterministic(t *testing.T) {
	reg := builtin.Registry()
	a, err := Shrink(context.Background(), planted(t), reg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Shrink(context.Background(), planted(t), reg, Options{})
	if !bytes.Equal(a.TOML, b.TOML) || !slices.Equal(a.Changes, b.Changes) || a.Runs != b.Runs {
		t.Error("two shrinks of the same scenario differ")
	}
}

func TestShrink_BudgetBoundsTheRuns(t *testing.T) {
	res, err := Shrink(context.Background(), planted(t), builtin.Registry(), Options{Budget: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Runs != 3 || !res.Exhausted {
		t.Errorf("runs %d exhausted %v", res.Runs, res.Exhausted)
	}
	if _, err := parse(res.TOML, builtin.Registry()); err != nil {
		t.Errorf("an exhausted shrink still returns a valid scenario: %v", err)
	}
}

func TestShrink_ContextStopsIt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	res, err := Shrink(ctx, planted(t), builtin.Registry(), Options{Progress: func(s Step) {
		if s.Run == 2 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.Runs != 2 {
		t.Errorf("stopped %v after %d runs", res.Stopped, res.Runs)
	}
}

func TestShrink_RefusesWhatIsNotFailing(t *testing.T) {
	reg := builtin.Registry()
	_, err := Shrink(context.Background(), planted(t), reg, Options{Assert: "pings_bounded"})
	if !errors.Is(err, ErrNotFailing) || !strings.Contains(err.Error(), "pings_bounded") {
		t.Errorf("passing assertion: %v", err)
	}
	_, err = Shrink(context.Background(), planted(t), reg, Options{Assert: "nope"})
	if err == nil || !strings.Contains(err.Error(), `no assertion "nope" (the scenario has: no_delivery_drops, pings_bounded)`) {
		t.Errorf("unknown assertion: %v", err)
	}
	ref, _ := scenarios.LoadLibrary("smoke/three_mesh", reg)
	if _, err := Shrink(context.Background(), ref, reg, Options{}); !errors.Is(err, ErrNotFailing) {
		t.Errorf("passing scenario: %v", err)
	}
}

// TestShrink_ACandidateTheLoaderRejectsIsNotKept_Issue9: removing the
// kill of a kill/resurrect pair leaves a PeerResurrect of a running peer,
// which validation rejects. The shrinker treats that candidate as not
// kept, without a run and without an error, and keeps shrinking.
func TestShrink_ACandidateTheLoaderRejectsIsNotKept_Issue9(t *testing.T) {
	src, err := os.ReadFile("testdata/pair.toml")
	if err != nil {
		t.Fatal(err)
	}
	reg := builtin.Registry()
	sc, err := scenarios.Parse("pair.toml", src, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	var steps []Step
	res, err := Shrink(context.Background(), sc, reg, Options{Progress: func(s Step) { steps = append(steps, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Scenario.Mutations) != 2 {
		t.Errorf("mutations %+v, want the pair: the failure needs both", res.Scenario.Mutations)
	}
	for _, s := range steps {
		if s.Pass == "mutations" && strings.Contains(s.Change, "PeerKill") && !strings.Contains(s.Change, "PeerResurrect") {
			t.Errorf("the candidate without the kill was run: %+v", s)
		}
	}
}
