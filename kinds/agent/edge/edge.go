// Package edge is `detsim edge`: the seeded fault schedule of a scenario
// (or of one seed of a property such as agent_faults) served to an
// outside agent over real HTTP on loopback, and the agent judged by the
// same oracles as the simulated one (docs/agents.md, "Testing your own
// agent").
//
// The edge plays everything around the agent: the provider — the
// Anthropic Messages API and the OpenAI Chat Completions API, streaming
// or not, each reply and fault taken from the scenario's provider script
// in the order of the session's requests (kinds/agent/provider renders them:
// the simulator's own bytes) —, the tools — the agent's real commands,
// allow-listed, run with the scenario's tool effects applied (nonzero
// exit, hang, huge, binary or partial output, cancellation mid-effect),
// output bounded and every state recorded —, and the harness: the
// scenario's Cancel and kill of the agent at their instants, on a control
// endpoint. Every delay is the scenario's, multiplied by a time scale.
//
// A session is one agent's episode, named in the URL (/s/NAME/...), so
// parallel agents and an SDK's retries are told apart; each session
// writes a bundle of what the edge served and what the agent reported,
// with virtual_time_ns the real time since the session began divided by
// the time scale, and the oracles judge it. It is outside the
// determinism fence: it runs on real time, and binds to loopback only.
package edge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/detsim/detsim/bundle/verdict"
	"github.com/detsim/detsim/internal/guard"
	"github.com/detsim/detsim/kinds/agent/agent"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/kinds/agent/providerserve"
	"github.com/detsim/detsim/kinds/agent/tool"
	"github.com/detsim/detsim/network"
	"github.com/detsim/detsim/scenarios"
)

// Limits and defaults.
const (
	DefaultMaxSessions   = 64
	DefaultMaxEpisodes   = 10_000
	DefaultIdleStop      = 60 * time.Second
	DefaultMaxToolOutput = 4 << 20
	DefaultToolTimeout   = 5 * time.Minute
	maxRequestsPerEp     = 10_000 // per episode: the maps a session keeps are bounded by it
	maxReportBytes       = 1 << 20
	// maxRefusals bounds the refused records an episode's bundle keeps,
	// and the lines of Out/refused.ndjson: a client repeating a bad
	// request fills neither without end.
	maxRefusals = 1_000
)

// Judged lists the oracle kinds the edge judges an outside agent by:
// those whose claims an agent's reports make, and those that read only
// what the edge saw — requests and their timing, tool runs, the ids
// served and sent back (docs/agents.md). The others read per-attempt
// records only the built-in agent writes; their verdicts are
// Inconclusive in an edge bundle.
var Judged = []string{"no_torn_success", "response_bounded", "output_bounded", "cancel_settles_within",
	"no_commit_after_settle", "turn_outcome_once", "retry_budget", "tool_run_once", "tool_result_returned",
	"turn_not_repeated", "tool_deadline_kept", "no_work_after_cancel"}

// Options tune an edge.
type Options struct {
	// TimeScale multiplies every scripted delay, tool duration and
	// control instant (0.01: a hundred times faster); 0 is 1.
	TimeScale float64
	// Schedule says when the scenario's Cancel, kill and restart of the
	// agent fire: ScheduleProgress ("" too) at the agent's progress where
	// the instant falls in the built-in agent's episode (docs/agents.md,
	// "Faults that meet the agent"), ScheduleTime at the instant.
	Schedule string
	// DrawnIn is the schedule time a property drew the scenario's Cancel,
	// kill and restart instants in when the scenario is one of its seeds
	// (DrawSpan); zero for a written scenario, placed in its duration.
	// The progress schedule spreads the instants past the built-in
	// agent's episode over the agent's steps as the draw spread them over
	// this span (anchors; docs/agents.md, "Faults that meet the agent").
	DrawnIn Span
	// Out is the directory every session's bundles are written under
	// (Out/SESSION/EPISODE); it must not exist, or be empty.
	Out string
	// Allow lists the tool commands (argv[0], exactly) an agent may run.
	Allow []string
	// ToolDir is where tool commands run ("" the current directory).
	ToolDir string
	// MaxToolOutput bounds the output a tool run captures and returns.
	MaxToolOutput int64
	// Key is what POST /sessions must present (x-api-key or
	// Authorization: Bearer); each session then has a key of its own,
	// which alone opens its routes (docs/security.md). New refuses an
	// empty Key.
	Key string
	// MaxConns bounds the connections one client (a local user) has
	// open at once: one more is closed as it is accepted
	// (internal/guard). MaxSessions bounds the sessions open at once;
	// MaxRequestBytes a request body.
	MaxConns, MaxSessions int
	MaxRequestBytes       int64
	// MaxEpisodes bounds the episodes (bundles) each client (a local
	// user) begins, over every session and reset, so the edge's memory
	// and output stay bounded however long it runs and a client that
	// spends its budget leaves the others theirs (0: DefaultMaxEpisodes).
	MaxEpisodes int
	// BodyIdle and BodyRead bound the reading of a request body.
	BodyIdle, BodyRead time.Duration
	// IdleStop stops the edge once no request has been in flight for
	// that long (0: DefaultIdleStop; negative: never; the command's
	// --idle-stop 0 passes negative); Sessions, when
	// positive, stops it once that many sessions have ended.
	IdleStop time.Duration
	Sessions int
	// Version is the simulator version bundles record.
	Version string
	// Logf, when set, gets one line per request and per refusal.
	Logf func(format string, args ...any)
}

// Edge serves one scenario to outside agents.
type Edge struct {
	sc         *scenarios.Scenario
	opts       Options
	script     provider.Script
	providerID string
	agentID    string
	plan       agent.Plan
	effects    map[string][]tool.Effect // tool peer → its effects
	idempotent map[string]bool          // tool peers declared idempotent
	control    []network.Mutation       // Cancel, PeerKill, PeerResurrect of the agent, by time
	anchors    []anchor                 // where each control event fires in the agent's progress; nil: at its instant
	judged     []scenarios.Assertion
	allow      map[string]argPolicy // program → what arguments it may take

	// pieceLate, when set (benchmarks), gets how long after its
	// scheduled instant each streamed piece was written and flushed.
	pieceLate func(time.Duration)

	mu       sync.Mutex
	sessions map[string]*session
	gone     map[string]string // ended session → its key, so its agent hears it ended, not 401
	ended    []Episode
	begun    map[string]int // episodes begun per client, each bounded by MaxEpisodes
	refused  int            // lines written to Out/refused.ndjson
	open     int            // sessions not ended
	done     int            // sessions ended
	stop     context.CancelFunc
}

// Episode is one ended episode: where its bundle is and how it was judged.
type Episode struct {
	Session  string
	Bundle   string
	Verdicts []verdict.Verdict
	Err      error
}

// New prepares an edge for sc, which must have exactly one agent peer
// and the provider it names; its tool peers serve the agent's tools.
func New(sc *scenarios.Scenario, opts Options) (*Edge, error) {
	// Each zero option takes its own default, field by field, as
	// providerserve's NewHandler and guard.NewListener do theirs: the
	// fields and defaults differ, so the lines look alike with nothing
	// to share.
	if opts.TimeScale <= 0 {
		opts.TimeScale = 1
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxEpisodes <= 0 {
		opts.MaxEpisodes = DefaultMaxEpisodes
	}
	if opts.MaxToolOutput <= 0 {
		opts.MaxToolOutput = DefaultMaxToolOutput
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = providerserve.DefaultMaxRequestBytes
	}
	if opts.BodyIdle <= 0 {
		opts.BodyIdle = providerserve.DefaultBodyIdle
	}
	if opts.BodyRead <= 0 {
		opts.BodyRead = providerserve.DefaultBodyRead
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = providerserve.DefaultMaxConns
	}
	if opts.Key == "" {
		return nil, errors.New("edge: no key: every listener is authenticated (docs/security.md)")
	}
	allow, err := parseAllow(opts.Allow)
	if err != nil {
		return nil, err
	}
	e := &Edge{sc: sc, opts: opts, allow: allow, effects: map[string][]tool.Effect{}, idempotent: map[string]bool{}, sessions: map[string]*session{}, gone: map[string]string{}, begun: map[string]int{}}
	ids := make([]string, len(sc.Peers))
	for i, p := range sc.Peers {
		ids[i] = p.ID
	}
	for _, p := range sc.Peers {
		if p.Kind == agent.Tag {
			if e.agentID != "" {
				return nil, fmt.Errorf("edge: %s has two agent peers (%s, %s); the edge stands in for one", sc.Path, e.agentID, p.ID)
			}
			e.agentID, e.plan = p.ID, agent.ReadPlan(p.KindConfig, ids)
		}
	}
	if e.agentID == "" {
		return nil, fmt.Errorf("edge: %s has no agent peer: the edge needs the workflow an agent of the scenario runs", sc.Path)
	}
	e.providerID = e.plan.Provider
	for _, p := range sc.Peers {
		switch {
		case p.ID == e.providerID:
			s, errs := provider.ParseScript(p.KindConfig)
			if len(errs) > 0 {
				return nil, fmt.Errorf("edge: peers[%s]: %v", p.ID, errs[0])
			}
			e.script = s
		case p.Kind == tool.Tag:
			effs, errs := tool.ParseEffects(p.KindConfig)
			if len(errs) > 0 {
				return nil, fmt.Errorf("edge: peers[%s]: %v", p.ID, errs[0])
			}
			e.effects[p.ID] = effs
			e.idempotent[p.ID] = tool.Idempotent(p.KindConfig)
		}
	}
	for _, m := range sc.Mutations {
		if m.Peer == e.agentID && (m.Kind == network.Cancel || m.Kind == network.PeerKill || m.Kind == network.PeerResurrect) {
			e.control = append(e.control, m)
		}
	}
	slices.SortStableFunc(e.control, func(a, b network.Mutation) int { return int(a.At - b.At) })
	switch opts.Schedule {
	case "", ScheduleProgress:
		if len(e.control) > 0 {
			steps, end, err := referenceRun(sc, e.agentID, e.providerID)
			if err != nil {
				return nil, fmt.Errorf("edge: the built-in agent's run of %s, which places the control events: %v", sc.Path, err)
			}
			span := opts.DrawnIn
			if span == (Span{}) {
				span = Span{0, sc.DurationNs}
			}
			e.anchors = anchors(e.control, steps, end, span)
		}
	case ScheduleTime:
	default:
		return nil, fmt.Errorf("edge: schedule %q: want %s or %s", opts.Schedule, ScheduleProgress, ScheduleTime)
	}
	for _, a := range sc.Assertions {
		if slices.Contains(Judged, a.Kind) {
			e.judged = append(e.judged, a)
		}
	}
	if err := checkOut(opts.Out); err != nil {
		return nil, err
	}
	return e, nil
}

// checkOut refuses an output directory that exists with anything in it:
// the edge never writes over what it did not make.
func checkOut(out string) error {
	if out == "" {
		return errors.New("edge: no output directory (--out)")
	}
	ents, err := os.ReadDir(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("edge: --out %s: %v", out, err)
	case len(ents) > 0:
		return fmt.Errorf("edge: --out %s exists and is not empty; the edge writes only into a new or empty directory", out)
	}
	return nil
}

func (e *Edge) logf(format string, args ...any) {
	if e.opts.Logf != nil {
		e.opts.Logf(format, args...)
	}
}

// scaled turns a scenario duration into real time.
func (e *Edge) scaled(ns int64) time.Duration {
	return time.Duration(float64(ns) * e.opts.TimeScale)
}

// Serve serves on ln until ctx is done, the edge is idle for IdleStop,
// or Sessions sessions have ended; then it ends every open session,
// writes and judges its bundle, and returns every episode. It refuses a
// listener that is not loopback TCP.
func (e *Edge) Serve(ctx context.Context, ln net.Listener) ([]Episode, error) {
	if err := providerserve.CheckLoopback(ln.Addr()); err != nil {
		ln.Close()
		return nil, err
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	e.mu.Lock()
	e.stop = stop
	e.mu.Unlock()
	act := providerserve.NewActivity()
	srv := &http.Server{
		Handler:           act.Wrap(http.HandlerFunc(e.serveHTTP)),
		MaxHeaderBytes:    providerserve.MaxHeaderBytes,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       30 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	idle := e.opts.IdleStop
	if idle == 0 {
		idle = DefaultIdleStop
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		var tick <-chan time.Time
		if idle > 0 { // negative: only ctx or Sessions stop it
			t := time.NewTicker(max(min(idle/4, time.Second), time.Millisecond)) // NewTicker panics on 0
			defer t.Stop()
			tick = t.C
		}
		for {
			select {
			case <-ctx.Done():
				// Handlers see ctx end (a hang, a held control poll) and
				// return; answers being written are let finish.
				sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				if srv.Shutdown(sctx) != nil {
					srv.Close()
				}
				cancel()
				return
			case <-tick:
				if act.IdleFor() >= idle {
					e.logf("edge: no request for %v: stopping", idle)
					stop()
				}
			}
		}
	}()
	srv.ConnContext = guard.ConnContext
	err := srv.Serve(guard.NewListener(ln, guard.Limits{PerClient: e.opts.MaxConns, Refused: func(client string) {
		e.logf("edge: refused a connection of %s: it has %d open", client, e.opts.MaxConns)
	}}))
	if ctx.Err() == nil || !errors.Is(err, http.ErrServerClosed) {
		stop()
		<-stopped
		return nil, err
	}
	<-stopped // Shutdown returned: its handlers have
	// Every handler has returned: nothing else writes to a session now.
	e.mu.Lock()
	var open []*session
	for _, s := range e.sessions {
		open = append(open, s)
	}
	e.mu.Unlock()
	slices.SortFunc(open, func(a, b *session) int { return strings.Compare(a.id, b.id) })
	for _, s := range open {
		s.end("edge_stopped")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.ended), nil
}

// takeEpisode counts one more episode begun by client, false when that
// client has begun MaxEpisodes already.
func (e *Edge) takeEpisode(client string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.begun[client] >= e.opts.MaxEpisodes {
		return false
	}
	e.begun[client]++
	return true
}

// episodeEnded files an ended episode; a session's last one (end, or
// the edge stopping) closes the session.
func (e *Edge) episodeEnded(ep Episode, sessionDone bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ended = append(e.ended, ep)
	if sessionDone {
		e.closeLocked(ep.Session)
	}
}

// sessionClosed closes s, whose next episode could not begin, if it is
// still open.
func (e *Edge) sessionClosed(s *session) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sessions[s.id] == s {
		e.closeLocked(s.id)
	}
}

// closeLocked counts session id ended and forgets it. Called with e.mu
// held.
func (e *Edge) closeLocked(id string) {
	e.open--
	e.done++
	if s := e.sessions[id]; s != nil {
		e.gone[id] = s.key
	}
	delete(e.sessions, id)
}

// stopIfDone stops the edge once Sessions sessions have ended and none
// is open. The /end handler calls it after it has answered, so the
// agent that ended the last session gets its verdicts.
func (e *Edge) stopIfDone() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.opts.Sessions > 0 && e.done >= e.opts.Sessions && e.open == 0 && e.stop != nil {
		e.stop()
	}
}

// bundlePath is where episode n of session id is written.
func (e *Edge) bundlePath(id string, n int) string {
	return filepath.Join(e.opts.Out, id, fmt.Sprintf("e%d", n))
}
