// Package monitor attaches the streaming verdict evaluator to an engine
// run: New wraps a verdict.Evaluator as the engine.Monitor the engine
// feeds every record to (and clones with every checkpoint), and Evaluator
// gets it back from whatever engine holds it now. batch and the headless
// debugger both attach their evaluators through it, so neither needs the
// other to see verdicts.
package monitor

import (
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
)

// Monitor is the streaming evaluator as an engine.Monitor.
type Monitor struct{ ev *verdict.Evaluator }

// New adapts ev to the engine's Monitor.
func New(ev *verdict.Evaluator) engine.Monitor { return Monitor{ev} }

var (
	_ engine.TypedMonitor = Monitor{}
	_ engine.BuiltMonitor = Monitor{}
)

// Evaluator returns the evaluator of an engine's monitor (e.Monitor()),
// nil when the engine runs without one. After a Restore the engine holds
// a checkpoint's clone, so fetch it again after every move.
func Evaluator(m engine.Monitor) *verdict.Evaluator {
	if em, ok := m.(Monitor); ok {
		return em.ev
	}
	return nil
}

// Evaluator returns the evaluator inside.
func (m Monitor) Evaluator() *verdict.Evaluator { return m.ev }

// Observe feeds one record to the evaluator.
func (m Monitor) Observe(line, at int64, hostID, kindTag, typ string, payload []byte) {
	m.ev.Observe(int(line), bundle.EventRecord{
		VirtualTimeNs: at, HostID: hostID, KindTag: kindTag, Type: typ,
		Event: payload, // Observe keeps nothing of it past the call
	})
}

// ObserveEvent feeds one record as the value its host built (a headless
// run: engine.Options.Headless).
func (m Monitor) ObserveEvent(line, at int64, hostID, kindTag string, ev hosts.Event) {
	m.ev.ObserveEvent(int(line), at, hostID, kindTag, ev)
}

// ObserveBuilt feeds one record as the value its host built and the
// JSON the engine wrote for it (a batch run: engine.Options.JudgeBuilt).
func (m Monitor) ObserveBuilt(line, at int64, hostID, kindTag string, ev hosts.Event, payload []byte) {
	m.ev.ObserveBuilt(int(line), at, hostID, kindTag, ev, payload)
}

// Resolved reports whether every assertion's verdict is determined.
func (m Monitor) Resolved() bool { return m.ev.Resolved() }

// Clone deep-copies the evaluator for a checkpoint.
func (m Monitor) Clone() engine.Monitor { return Monitor{m.ev.Clone()} }

// ApproxBytes estimates what a Clone holds, for the engine's checkpoint
// byte budget.
func (m Monitor) ApproxBytes() int64 { return m.ev.ApproxBytes() }
