package edge

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/internal/guard"
	"github.com/detsim/detsim/kinds/agent/llmwire"
	"github.com/detsim/detsim/kinds/agent/tool"
	"github.com/detsim/detsim/network"
)

// session is one agent's episode at a time: the script's entries it has
// taken, the tool effects, the control instants, and the bundle its
// records stream to.
type session struct {
	e     *Edge
	id    string
	key   string // what every request of this session presents
	owner string // the client that made it, whose episode budget it spends

	mu       sync.Mutex
	n        int // episode number, from 1
	start    time.Time
	w        *bundle.Writer
	sum      hash.Hash // of every line written (the writer trusts it)
	path     string
	lastNs   int64
	used     []bool            // script entries taken
	toolUsed map[string][]bool // tool peer → effects taken
	calls    int64
	turns    map[int64]int64     // turn → requests received for it
	reported map[int64]bool      // turns the agent reported
	served   map[string]served   // call → what was served
	uses     map[string]int64    // tool_use id → the turn whose response carried it last
	argvs    map[string][]string // tool_use id → the argv its script served, nil for none
	runs     map[string]*run     // tool run id → run in progress
	fired    []controlEvent      // control events fired so far
	armed    []bool              // control events whose timer is set
	reqs     int                 // model requests received: the agent's progress
	toolRuns int                 // tool runs started
	told     int                 // control events the control endpoint delivered, recorded once each
	notify   chan struct{}       // closed when the next control event fires
	timers   []*time.Timer
	killed   bool
	ended    bool
	refusals int   // refused records in this episode, up to maxRefusals
	err      error // a bundle write failed: reported at the end
}

// served is one model call the edge answered.
type served struct {
	turn int64
	done chan struct{} // closed once its response's end is recorded
}

type controlEvent struct {
	Action string `json:"action"`       // cancel, kill, restart
	AtNs   int64  `json:"at_ns"`        // schedule time it fired at
	On     string `json:"on,omitempty"` // where in the agent's progress (Options.Schedule progress)
}

// newSession starts episode 1 of session id, made by client owner.
func (e *Edge) newSession(id, owner string) (*session, error) {
	s := &session{e: e, id: id, key: guard.NewKey(), owner: owner}
	if err := s.begin(1); err != nil {
		return nil, err
	}
	return s, nil
}

// begin starts episode n: a new bundle, the script and tools afresh,
// the control instants armed from now.
func (s *session) begin(n int) error {
	e := s.e
	path := e.bundlePath(s.id, n)
	w, err := bundle.Create(path)
	if err != nil {
		return err
	}
	w.TrustEventsHash()
	s.n, s.w, s.path, s.sum = n, w, path, sha256.New()
	s.start, s.lastNs = time.Now(), 0
	s.used = make([]bool, len(e.script.Entries))
	s.toolUsed = map[string][]bool{}
	for peer, effs := range e.effects {
		s.toolUsed[peer] = make([]bool, len(effs))
	}
	s.calls = 0
	s.turns, s.reported = map[int64]int64{}, map[int64]bool{}
	s.served, s.uses, s.runs = map[string]served{}, map[string]int64{}, map[string]*run{}
	s.argvs = map[string][]string{}
	s.fired, s.told, s.notify = nil, 0, make(chan struct{})
	s.killed, s.ended, s.refusals = false, false, 0
	s.armed, s.reqs, s.toolRuns = make([]bool, len(e.control)), 0, 0
	for i, m := range e.control {
		switch {
		case e.anchors == nil:
			s.arm(i, m.At)
		case e.anchors[i].On == "start":
			s.arm(i, e.anchors[i].Delay)
		}
	}
	return nil
}

// arm sets control event i to fire delay of schedule time from now.
// Called with s.mu held (or before the session is shared).
func (s *session) arm(i int, delay int64) {
	s.armed[i] = true
	m := s.e.control[i]
	s.timers = append(s.timers, time.AfterFunc(s.e.scaled(delay), func() { s.fire(i, m) }))
}

// progressed counts one step of the agent's progress (a model request,
// or a tool run when tool) and arms the control events anchored there.
// Called with s.mu held.
func (s *session) progressed(tool bool) {
	if tool {
		s.toolRuns++
	} else {
		s.reqs++
	}
	for i, a := range s.e.anchors {
		if s.armed[i] {
			continue
		}
		if a.On == "request" && !tool && a.N == s.reqs || a.On == "tool_use" && tool && a.N == s.toolRuns || a.On == "fraction" && a.N == s.reqs+s.toolRuns {
			s.arm(i, a.Delay)
		}
	}
}

// now is the session's schedule time: real time since the episode began
// divided by the time scale, never going backwards. Called with s.mu held.
func (s *session) now() int64 {
	t := int64(float64(time.Since(s.start)) / s.e.opts.TimeScale)
	s.lastNs = max(s.lastNs, t)
	return s.lastNs
}

// record appends one record of host (kind tag tag; "" host for none) at
// the current schedule time. Called with s.mu held.
func (s *session) record(host, tag string, ev *llmwire.Event) int64 {
	t := s.now()
	if s.ended || s.err != nil {
		return t
	}
	line := bundle.AppendEventLine(nil, t, host, tag, ev)
	s.sum.Write(line)
	if err := s.w.WriteEventLine(line); err != nil {
		s.err = err
	}
	return t
}

// refuse records a request the edge refused (kind_tag edge).
func (s *session) refuse(what, reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuseLocked(what, reason)
}

// refuseLocked is refuse with s.mu held. It reports whether the refusal
// was recorded: a claim that comes with it is recorded only then, so
// refused reports are bounded as refusals are.
func (s *session) refuseLocked(what, reason string) bool {
	if s.refusals >= maxRefusals {
		return false
	}
	s.refusals++
	if s.refusals == maxRefusals {
		reason += " (" + strconv.Itoa(maxRefusals) + " refusals recorded in this episode: later ones are not)"
	}
	s.record("", "edge", llmwire.Ev("refused", llmwire.S("what", what), llmwire.S("reason", reason)))
	return true
}

// fire is control event i coming due: a Cancel, a kill or a restart of
// the agent, recorded as the engine records a mutation and told to every
// agent waiting on the control endpoint.
func (s *session) fire(i int, m network.Mutation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	ev := llmwire.Ev("mutation", llmwire.I("index", int64(i)), llmwire.S("kind", m.Kind.String()), llmwire.S("peer", m.Peer))
	if m.Kind == network.PeerResurrect {
		ev.Fields = append(ev.Fields, llmwire.B("preserve_state", m.PreserveState))
	}
	t := s.record("", "engine", ev)
	action := map[network.MutationKind]string{network.Cancel: "cancel", network.PeerKill: "kill", network.PeerResurrect: "restart"}[m.Kind]
	switch m.Kind {
	case network.PeerKill:
		s.killed = true
	case network.PeerResurrect:
		s.killed = false
	}
	ce := controlEvent{Action: action, AtNs: t}
	if s.e.anchors != nil {
		ce.On = s.e.anchors[i].String()
		for j, a := range s.e.anchors {
			if a.On == "after" && a.N == i+1 && !s.armed[j] {
				s.arm(j, a.Delay)
			}
		}
	}
	s.fired = append(s.fired, ce)
	close(s.notify)
	s.notify = make(chan struct{})
}

// end ends the current episode: every tool run still going is cancelled,
// the control timers stopped, and the bundle finished and judged.
func (s *session) end(why string) Episode {
	return s.finish(why, true)
}

// reset ends the current episode and begins the next.
// A next episode that cannot begin closes the session, as its last
// episode's end would: it no longer holds a place among the open.
func (s *session) reset() (Episode, error) {
	ep := s.finish("reset", false)
	s.mu.Lock()
	err := s.begin(s.n + 1)
	s.mu.Unlock()
	if err != nil {
		s.e.sessionClosed(s)
	}
	return ep, err
}

func (s *session) finish(why string, last bool) Episode {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return Episode{Session: s.id}
	}
	for _, t := range s.timers {
		t.Stop()
	}
	s.timers = nil
	runs := make([]*run, 0, len(s.runs))
	for _, r := range s.runs {
		runs = append(runs, r)
	}
	s.mu.Unlock()
	slices.SortFunc(runs, func(a, b *run) int { return int(a.seq - b.seq) })
	for _, r := range runs {
		r.cancel("episode_end")
		<-r.done
	}
	s.mu.Lock()
	s.record("", "edge", llmwire.Ev("episode_closed", llmwire.S("why", why)))
	end := s.now()
	s.ended = true
	w, path, werr, sum := s.w, s.path, s.err, s.sum.Sum(nil)
	s.mu.Unlock()

	ep := Episode{Session: s.id, Bundle: path}
	w.SetEventsSHA256(hex.EncodeToString(sum))
	vs, err := s.judge(w, end)
	if werr != nil {
		err = werr
	}
	if err != nil {
		w.Abort()
		ep.Err = err
	} else {
		ep.Verdicts = vs
		// A real agent's episode is not bounded by the scenario's
		// duration: one that went on past it keeps every record, and its
		// bundle's scenario.toml ends where the episode did, so verify
		// holds the two together (before, such a bundle failed verify).
		scTOML, past := s.e.sc.TOML(), ""
		if end > s.e.sc.DurationNs {
			scTOML = s.e.sc.TOMLEndingAt(end)
			past = fmt.Sprintf("; past the scenario's duration_ns %d, so scenario.toml's duration_ns is the episode's end", s.e.sc.DurationNs)
		}
		m := bundle.Manifest{SimulatorVersion: s.e.opts.Version, ScenarioPath: s.e.sc.Path,
			ScenarioSHA256: fmt.Sprintf("%x", s.e.sc.SourceSHA256), Seed: s.e.sc.Seed, DurationNs: end,
			HostArch: runtime.GOARCH, Digest: bundle.RunDigest(sum, nil), Mode: bundle.ModeEdge,
			Interrupted: fmt.Sprintf("the episode ended (%s) at %d ns of schedule time (time scale %v)%s", why, end, s.e.opts.TimeScale, past),
			Machine:     &bundle.Machine{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}}
		if err := w.Finish(m, scTOML, verdict.Marshal(vs)); err != nil {
			ep.Err = err
		}
	}
	s.e.episodeEnded(ep, last)
	return ep
}

// judge evaluates the judged oracles on the finished events and gives
// every other declared assertion an Inconclusive verdict, so the bundle
// has one verdict per declared assertion, in order.
func (s *session) judge(w *bundle.Writer, end int64) ([]verdict.Verdict, error) {
	if err := w.FlushEvents(); err != nil {
		return nil, err
	}
	vs, err := verdict.EvaluateBundle(w.Dir(), s.e.judged, end)
	if err != nil {
		return nil, err
	}
	var out []verdict.Verdict
	for _, a := range s.e.sc.Assertions {
		if i := slices.IndexFunc(vs, func(v verdict.Verdict) bool { return v.Name == a.Name }); i >= 0 {
			out = append(out, vs[i])
			continue
		}
		out = append(out, verdict.Verdict{Name: a.Name, Kind: a.Kind, Parameters: a.ParamMap(), Outcome: verdict.Inconclusive,
			Evidence: []verdict.Evidence{}, Reason: "not judged at the edge: it reads per-attempt records only the built-in agent writes"})
	}
	return out, nil
}

// toolPeer is the tool peer serving tool name, and its effects.
func (e *Edge) toolPeer(name string) (string, []tool.Effect, bool) {
	for _, p := range e.plan.Tools {
		if p.Key == name {
			effs, ok := e.effects[p.Value]
			return p.Value, effs, ok
		}
	}
	return "", nil, false
}
