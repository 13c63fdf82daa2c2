package edge

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/detsim/detsim/kinds/agent/llmwire"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/kinds/agent/tool"
)

// run is one tool run in progress.
type run struct {
	seq    int64
	id     string // t<turn>.<tool use id>
	peer   string
	stop   context.CancelFunc
	mu     sync.Mutex
	by     string // why it was cancelled, once it was
	done   chan struct{}
	cancel func(by string)
}

// toolRequest is POST /s/SESSION/tools/NAME.
type toolRequest struct {
	ID   string   `json:"id"`   // the tool use id the model sent
	Argv []string `json:"argv"` // the command to run, argv[0] on the allow-list
}

// toolResponse is its answer.
type toolResponse struct {
	ID           string `json:"id"`
	Status       string `json:"status"` // ok, failed, cancelled
	ExitCode     int    `json:"exit_code"`
	Output       string `json:"output,omitempty"`
	OutputBase64 string `json:"output_base64,omitempty"` // instead of output when it is not text
	Bytes        int    `json:"bytes"`
}

var runSeq struct {
	sync.Mutex
	n int64
}

// tool serves POST /s/SESSION/tools/NAME (run a tool use) and POST
// /s/SESSION/tools/NAME/ID/cancel (cancel it): the agent's real command,
// under the scenario's effect for that tool use.
func (s *session) tool(w http.ResponseWriter, r *http.Request, rest string) {
	if r.Method != http.MethodPost {
		s.refuse(r.Method+" "+r.URL.Path, "method not allowed")
		jsonError(w, http.StatusMethodNotAllowed, "invalid_request_error", "POST only")
		return
	}
	name, sub, _ := strings.Cut(rest, "/")
	if id, ok := strings.CutSuffix(sub, "/cancel"); ok {
		s.cancelRun(w, name, id)
		return
	}
	e := s.e
	peer, effs, known := e.toolPeer(name)
	if !known {
		s.refuse("tool "+name, "unknown tool")
		jsonError(w, http.StatusNotFound, "not_found_error", fmt.Sprintf("unknown tool %q: the scenario's agent has %v", name, toolNames(e)))
		return
	}
	body, ok := s.readBody(w, r, provider.Format{}, 64<<10)
	if !ok {
		return
	}
	var req toolRequest
	if err := json.Unmarshal(body, &req); err != nil || req.ID == "" {
		s.refuse("tool "+name, "not {\"id\": TOOL_USE_ID, \"argv\": [...]}")
		jsonError(w, http.StatusBadRequest, "invalid_request_error", "want {\"id\": TOOL_USE_ID, \"argv\": [COMMAND, ARGS...]}")
		return
	}

	s.mu.Lock()
	turn, served := s.uses[req.ID]
	id := "t" + strconv.FormatInt(turn, 10) + "." + req.ID
	why := e.permitted(req.Argv, s.argvs[req.ID])
	switch {
	case why != "":
		// The agent's attempt is recorded in its own bundle: running
		// what it was not served is its failure to see.
		s.refuseLocked("tool "+name+" "+req.ID, why)
		s.mu.Unlock()
		jsonError(w, http.StatusForbidden, "permission_error", why)
		return
	case s.ended:
		s.mu.Unlock()
		jsonError(w, http.StatusConflict, "invalid_request_error", "the episode has ended")
		return
	case !served:
		s.mu.Unlock()
		s.refuse("tool "+name, fmt.Sprintf("tool use %q was never served in this episode", req.ID))
		jsonError(w, http.StatusConflict, "invalid_request_error", fmt.Sprintf("no response of this episode asked for tool use %q", req.ID))
		return
	case s.runs[id] != nil:
		s.mu.Unlock()
		s.refuse("tool "+name, fmt.Sprintf("tool use %q is already running", req.ID))
		jsonError(w, http.StatusConflict, "invalid_request_error", fmt.Sprintf("tool use %q is already running", req.ID))
		return
	}
	i := tool.Pick(effs, s.toolUsed[peer], id, name)
	eff := tool.Effect{Effect: tool.Success, OutputBytes: 64}
	if i >= 0 {
		s.toolUsed[peer][i] = true
		eff = effs[i]
	}
	ctx, stop := context.WithCancel(r.Context())
	runSeq.Lock()
	runSeq.n++
	rn := &run{seq: runSeq.n, id: id, peer: peer, stop: stop, done: make(chan struct{})}
	runSeq.Unlock()
	rn.cancel = func(by string) {
		rn.mu.Lock()
		if rn.by == "" {
			rn.by = by
		}
		rn.mu.Unlock()
		stop()
	}
	s.runs[id] = rn
	started := toolState(id, "started", eff.Effect, 0, "")
	if e.idempotent[peer] {
		// tool_run_once lets an idempotent tool's use run again.
		started.Fields = append(started.Fields, llmwire.B("idempotent", true))
	}
	s.record(peer, "tool", started)
	s.progressed(true)
	s.mu.Unlock()
	e.logf("edge: %s %s tool %s effect %s", s.id, id, name, eff.Effect)
	defer close(rn.done)

	res := s.execute(ctx, rn, req.Argv, eff)
	s.mu.Lock()
	delete(s.runs, id)
	s.mu.Unlock()
	out := toolResponse{ID: req.ID, Status: res.status, ExitCode: res.exit, Bytes: len(res.output)}
	if utf8.Valid(res.output) && !bytes.ContainsRune(res.output, 0) {
		out.Output = string(res.output)
	} else {
		out.OutputBase64 = base64.StdEncoding.EncodeToString(res.output)
	}
	writeJSON(w, http.StatusOK, out)
}

func toolNames(e *Edge) []string {
	var out []string
	for _, p := range e.plan.Tools {
		out = append(out, p.Key)
	}
	return out
}

func toolState(id, state, effect string, n int64, by string) *llmwire.Event {
	ev := llmwire.Ev("tool_state", llmwire.S("call", id), llmwire.S("state", state), llmwire.S("effect", effect), llmwire.I("bytes", n))
	if by != "" {
		ev.Fields = append(ev.Fields, llmwire.S("by", by))
	}
	return ev
}

type runResult struct {
	status string
	exit   int
	output []byte
}

// execute runs argv (none: the effect's output alone) and applies the
// effect on the scenario's timing: the run lasts at least the effect's
// duration, scaled; a partial effect writes half its output at half the
// duration; hang never ends. A cancelled context (the agent's cancel, a
// client gone, the episode's end) kills the command and ends the run
// cancelled, keeping what it had written.
func (s *session) execute(ctx context.Context, rn *run, argv []string, eff tool.Effect) runResult {
	e := s.e
	began := time.Now()
	out := []byte{}
	exit := 0
	if len(argv) > 0 {
		var lk *leak
		if out, exit, lk = s.command(ctx, argv); lk != nil {
			// The tool's failure, recorded before the edge's cleanup
			// that ended what it left can hide it.
			s.mu.Lock()
			s.record(rn.peer, "tool", toolLeak(rn.id, lk))
			s.mu.Unlock()
		}
	} else {
		out = tool.Text(rn.id, min(eff.OutputBytes, e.opts.MaxToolOutput))
	}
	cancelled := func(n int) runResult {
		rn.mu.Lock()
		by := rn.by
		rn.mu.Unlock()
		if by == "" {
			by = "disconnect"
		}
		s.mu.Lock()
		s.record(rn.peer, "tool", toolState(rn.id, "cancelled", eff.Effect, int64(n), by))
		s.mu.Unlock()
		return runResult{status: "cancelled", exit: 130, output: out[:n]}
	}
	dur := e.scaled(eff.DurationNs)
	half := len(out) / 2
	switch eff.Effect {
	case tool.Hang:
		<-ctx.Done()
		return cancelled(0)
	case tool.PartialFail, tool.CancelledMid:
		if !sleepUntil(ctx, began.Add(dur/2)) {
			return cancelled(0)
		}
		s.mu.Lock()
		s.record(rn.peer, "tool", toolState(rn.id, "partial", eff.Effect, int64(half), ""))
		s.mu.Unlock()
	}
	if ctx.Err() != nil || !sleepUntil(ctx, began.Add(dur)) {
		n := 0
		if eff.Effect == tool.PartialFail || eff.Effect == tool.CancelledMid {
			n = half
		}
		return cancelled(n)
	}
	state, res := "committed", runResult{status: "ok", exit: exit, output: out}
	switch eff.Effect {
	case tool.ExitNonzero:
		res.status, res.exit = "failed", int(eff.ExitCode)
	case tool.HugeOutput:
		if pad := int(min(eff.OutputBytes, e.opts.MaxToolOutput)) - len(out); pad > 0 {
			res.output = append(out, tool.Text(rn.id, int64(pad))...)
		}
	case tool.BinaryOutput:
		res.output = tool.Binary(min(eff.OutputBytes, e.opts.MaxToolOutput))
	case tool.PartialFail:
		res.status, res.exit, res.output = "failed", int(eff.ExitCode), out[:half]
	case tool.CancelledMid:
		res.status, res.exit, res.output = "cancelled", 130, out[:half]
	}
	if res.status == "ok" && exit != 0 {
		res.status = "failed" // the real command failed: that is the truth
	}
	switch res.status {
	case "failed":
		state = "failed"
	case "cancelled":
		state = "cancelled"
	}
	s.mu.Lock()
	s.record(rn.peer, "tool", toolState(rn.id, state, eff.Effect, int64(len(res.output)), ""))
	s.mu.Unlock()
	return res
}

// command runs argv in the tool directory, its stdout and stderr
// together and bounded. Its whole process tree (proctree.go) ends with
// it: when ctx ends, at the timeout, and when the command exits, when
// what it left still running is the leak returned.
func (s *session) command(ctx context.Context, argv []string) ([]byte, int, *leak) {
	buf := &capped{max: int(s.e.opts.MaxToolOutput)}
	cmd, tree, err := startInTree(func() *exec.Cmd {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = s.e.opts.ToolDir
		cmd.Stdout, cmd.Stderr = buf, buf
		// A process outside the tree (none should be) may hold the output
		// pipe open after the tree ended: Wait gives up on it after this.
		cmd.WaitDelay = toolWaitDelay
		return cmd
	})
	if err != nil {
		return []byte(err.Error()), 127, nil
	}
	defer tree.release()
	timeout := time.NewTimer(DefaultToolTimeout)
	defer timeout.Stop()
	var lk *leak
	select {
	case <-tree.exited():
		if pids := tree.alive(); len(pids) > 0 {
			lk = &leak{via: tree.via, pids: pids}
			for _, p := range pids[:min(len(pids), maxLeakListed)] {
				lk.commands = append(lk.commands, commandLine(p))
			}
		}
	case <-ctx.Done():
	case <-timeout.C:
	}
	tree.kill()
	err = tree.wait()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return buf.b, 0, lk
	case errors.Is(err, exec.ErrWaitDelay):
		return buf.b, cmd.ProcessState.ExitCode(), lk // exited 0; its pipe held open
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return buf.b, ee.ExitCode(), lk
	}
	return buf.b, 137, lk
}

// toolWaitDelay is how long a tool command's Wait waits for its output
// pipe to close after the command exited or was killed.
const toolWaitDelay = time.Second

// capped keeps the first max bytes written to it.
type capped struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// cancelRun is POST /s/SESSION/tools/NAME/ID/cancel.
func (s *session) cancelRun(w http.ResponseWriter, name, useID string) {
	// The run's key, as tool made it; and it must be this tool's run.
	peer, _, known := s.e.toolPeer(name)
	s.mu.Lock()
	var rn *run
	if turn, ok := s.uses[useID]; ok {
		rn = s.runs["t"+strconv.FormatInt(turn, 10)+"."+useID]
	}
	s.mu.Unlock()
	if rn != nil && (!known || rn.peer != peer) {
		rn = nil
	}
	if rn == nil {
		s.refuse("tool "+name+" cancel", fmt.Sprintf("no run of tool use %q in progress", useID))
		jsonError(w, http.StatusNotFound, "not_found_error", fmt.Sprintf("no run of tool use %q in progress", useID))
		return
	}
	rn.cancel("tool_cancel")
	<-rn.done
	writeJSON(w, http.StatusOK, map[string]string{"id": useID, "status": "cancelled"})
}
