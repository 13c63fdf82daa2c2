package monitor

import (
	"testing"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
)

type other struct{ engine.Monitor }

func TestEvaluator_BackFromTheMonitorAndItsClones(t *testing.T) {
	ev, err := verdict.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	m := New(ev)
	if Evaluator(m) != ev {
		t.Fatal("Evaluator(New(ev)) is not ev")
	}
	c := m.Clone()
	if got := Evaluator(c); got == nil || got == ev {
		t.Fatalf("a clone's evaluator is %p, want a copy of %p", got, ev)
	}
	if Evaluator(nil) != nil || Evaluator(other{}) != nil {
		t.Fatal("a monitor that is not one of ours has no evaluator")
	}
}
