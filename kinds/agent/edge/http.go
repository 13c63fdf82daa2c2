package edge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/detsim/detsim/internal/guard"
	"github.com/detsim/detsim/kinds/agent/llmwire"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/kinds/agent/providerserve"
)

// SessionHeader names the session of a request to /v1/messages or
// /v1/chat/completions, for a client that cannot put it in the path.
const SessionHeader = "x-detsim-session"

// TurnHeader names the turn a model request is for (1-based), for an
// agent whose messages do not count its turns: one that prefills an
// assistant message or compacts its history. Without it the turn is one
// more than the assistant messages the request carries.
const TurnHeader = "x-detsim-turn"

var sessionID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// serveHTTP opens as providerserve's ServeHTTP does, alike in shape: a panic
// logged, then guard's refusals, each answered in its own API's error body
// and log prefix.
func (e *Edge) serveHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil && p != http.ErrAbortHandler {
			e.logf("edge: internal error on %s %s: %v", r.Method, r.URL.Path, p)
		}
	}()
	// Nothing a refused request sends is recorded in any session: it
	// may come from anyone, and a session's bundle is its agent's.
	if ref := guard.CheckRequest(r); ref != nil {
		e.logf("edge: refused %s %s: %s", r.Method, r.URL.Path, ref.Reason)
		jsonError(w, ref.Status, ref.Type, ref.Reason)
		return
	}
	path := r.URL.Path
	presented := guard.Presented(r)
	if path == "/sessions" {
		if !guard.Equal(presented, e.opts.Key) {
			e.unauthorized(w, r)
			return
		}
		e.createSession(w, r)
		return
	}
	var sid, rest string
	switch {
	case strings.HasPrefix(path, "/s/"):
		sid, rest, _ = strings.Cut(path[len("/s/"):], "/")
		rest = "/" + rest
	case r.Header.Get(SessionHeader) != "":
		sid, rest = r.Header.Get(SessionHeader), path
	default:
		e.refuseEdge(w, http.StatusNotFound, "not_found_error", "no session: use /s/SESSION/... (POST /sessions makes one) or the "+SessionHeader+" header", path)
		return
	}
	e.mu.Lock()
	s := e.sessions[sid]
	e.mu.Unlock()
	switch {
	case s != nil && guard.Equal(presented, s.key):
	case s == nil && (guard.Equal(presented, e.opts.Key) || guard.Equal(presented, e.goneKey(sid))):
		e.refuseEdge(w, http.StatusNotFound, "not_found_error", fmt.Sprintf("unknown session %q (POST /sessions makes one)", sid), path)
		return
	default: // another session's key opens nothing here
		e.unauthorized(w, r)
		return
	}
	switch {
	case rest == "/v1/messages":
		s.model(w, r, false)
	case rest == "/v1/chat/completions" || rest == "/chat/completions":
		s.model(w, r, true)
	case strings.HasPrefix(rest, "/tools/"):
		s.tool(w, r, strings.TrimPrefix(rest, "/tools/"))
	case rest == "/control":
		s.control(w, r)
	case rest == "/report":
		s.report(w, r)
	case rest == "/reset" && r.Method == http.MethodPost:
		if !e.takeEpisode(s.owner) {
			s.refuse("POST "+path, "client "+s.owner+" has begun its "+strconv.Itoa(e.opts.MaxEpisodes)+" episodes")
			jsonError(w, http.StatusTooManyRequests, "rate_limit_error", fmt.Sprintf("client %s has begun its %d episodes, its share of this edge (other clients keep theirs); end this session and start another edge", s.owner, e.opts.MaxEpisodes))
			return
		}
		ep, err := s.reset()
		writeEpisode(w, ep, err)
		if err != nil { // the session closed: it may have been the last
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
			e.stopIfDone()
		}
	case rest == "/end" && r.Method == http.MethodPost:
		s.reportEnd(w, r)
		writeEpisode(w, s.end("agent_ended"), nil)
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		e.stopIfDone()
	default:
		s.refuse(r.Method+" "+path, "no such endpoint")
		jsonError(w, http.StatusNotFound, "not_found_error", "no endpoint "+r.Method+" "+rest+" (docs/agents.md, \"Testing your own agent\")")
	}
}

// unauthorized answers 401 to a request that presented no key, or one
// that opens something else, and writes it nowhere but the log: whoever
// sent it may be anyone, and must not fill the edge's records.
func (e *Edge) unauthorized(w http.ResponseWriter, r *http.Request) {
	ref := guard.Unauthorized(r)
	if guard.Presented(r) != "" {
		ref.Reason = "the key presented does not open " + r.URL.Path + ": POST /sessions takes the edge's key (its key file), a session's routes the api_key its creation answered"
	}
	e.logf("edge: refused %s %s: %s", r.Method, r.URL.Path, ref.Reason)
	jsonError(w, ref.Status, ref.Type, ref.Reason)
}

// refuseEdge answers a request no session can record and logs it in
// Out/refused.ndjson, the edge's own record of what it refused.
func (e *Edge) refuseEdge(w http.ResponseWriter, status int, typ, reason, path string) {
	e.logf("edge: refused %s: %s", path, reason)
	msg := reason
	e.mu.Lock()
	if e.refused < maxRefusals && os.MkdirAll(e.opts.Out, 0o777) == nil {
		e.refused++
		if e.refused == maxRefusals {
			msg += " (" + strconv.Itoa(maxRefusals) + " refusals recorded: later ones are not)"
		}
		if f, err := os.OpenFile(e.opts.Out+"/refused.ndjson", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o666); err == nil {
			line, _ := json.Marshal(map[string]any{"time": time.Now().UTC().Format(time.RFC3339Nano), "path": path, "status": status, "reason": msg})
			f.Write(append(line, '\n'))
			f.Close()
		}
	}
	e.mu.Unlock()
	jsonError(w, status, typ, reason)
}

// jsonError answers with the Anthropic API's error shape (the edge's own
// endpoints use it too).
func jsonError(w http.ResponseWriter, status int, typ, msg string) {
	apiError(w, provider.Format{}, status, typ, msg)
}

func apiError(w http.ResponseWriter, f provider.Format, status int, typ, msg string) {
	body := provider.ErrorBody(f, typ, msg)
	w.Header().Set("content-type", "application/json")
	w.Header().Set("content-length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("content-type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func writeEpisode(w http.ResponseWriter, ep Episode, err error) {
	if err == nil {
		err = ep.Err
	}
	if err != nil {
		jsonError(w, http.StatusInternalServerError, "api_error", err.Error())
		return
	}
	failed := 0
	for _, v := range ep.Verdicts {
		if v.Outcome == "Fail" {
			failed++
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"session": ep.Session, "bundle": ep.Bundle, "failed": failed, "verdicts": ep.Verdicts})
}

// createSession is POST /sessions {"id": NAME}: a new session, episode 1.
func (e *Edge) createSession(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		jsonError(w, http.StatusMethodNotAllowed, "invalid_request_error", "POST /sessions")
		return
	}
	body, err := io.ReadAll(providerserve.BodyReader(w, r, 4<<10, e.opts.BodyIdle, e.opts.BodyRead))
	var req struct {
		ID string `json:"id"`
	}
	if err != nil || (len(bytes.TrimSpace(body)) > 0 && json.Unmarshal(body, &req) != nil) {
		e.refuseEdge(w, http.StatusBadRequest, "invalid_request_error", "POST /sessions takes {\"id\": NAME} or nothing", r.URL.Path)
		return
	}
	owner := guard.ClientOf(r.Context())
	if req.ID == "" {
		req.ID = guard.NewID() // unguessable: 128 random bits
	}
	e.mu.Lock()
	switch {
	case !sessionID.MatchString(req.ID):
		e.mu.Unlock()
		e.refuseEdge(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("session id %q: want 1 to 64 of A-Z a-z 0-9 _ -", req.ID), r.URL.Path)
		return
	case e.sessions[req.ID] != nil || e.had(req.ID):
		e.mu.Unlock()
		e.refuseEdge(w, http.StatusConflict, "invalid_request_error", fmt.Sprintf("session %q exists (POST /s/%s/reset starts it over)", req.ID, req.ID), r.URL.Path)
		return
	case e.open >= e.opts.MaxSessions:
		e.mu.Unlock()
		e.refuseEdge(w, http.StatusTooManyRequests, "rate_limit_error", fmt.Sprintf("%d sessions open, the most the edge holds", e.open), r.URL.Path)
		return
	}
	e.open++
	e.mu.Unlock()
	if !e.takeEpisode(owner) {
		e.mu.Lock()
		e.open--
		e.mu.Unlock()
		e.refuseEdge(w, http.StatusTooManyRequests, "rate_limit_error", fmt.Sprintf("client %s has begun its %d episodes, its share of this edge (other clients keep theirs); start another edge", owner, e.opts.MaxEpisodes), r.URL.Path)
		return
	}
	s, err := e.newSession(req.ID, owner)
	e.mu.Lock()
	if err != nil {
		e.open--
		e.mu.Unlock()
		jsonError(w, http.StatusInternalServerError, "api_error", err.Error())
		return
	}
	e.sessions[req.ID] = s
	e.mu.Unlock()
	base := "http://" + r.Host + "/s/" + req.ID
	e.logf("edge: session %s", req.ID)
	writeJSON(w, http.StatusCreated, map[string]string{"id": req.ID, "api_key": s.key, "owner": owner,
		"anthropic_base_url": base, "openai_base_url": base + "/v1",
		"tools_url": base + "/tools/", "control_url": base + "/control", "report_url": base + "/report", "end_url": base + "/end"})
}

// goneKey is the key ended session id had ("" for none).
func (e *Edge) goneKey(id string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.gone[id]
}

// had reports whether a session of that id ended already. Called with
// e.mu held.
func (e *Edge) had(id string) bool {
	for _, ep := range e.ended {
		if ep.Session == id {
			return true
		}
	}
	return false
}

// readBody reads a request body under the edge's bounds; on failure it
// has answered (413, 408 or 400 in format f's shape) and recorded it.
func (s *session) readBody(w http.ResponseWriter, r *http.Request, f provider.Format, max int64) ([]byte, bool) {
	e := s.e
	body, err := io.ReadAll(providerserve.BodyReader(w, r, max, e.opts.BodyIdle, e.opts.BodyRead))
	if err == nil {
		return body, true
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		s.refuse(r.URL.Path, "body over "+strconv.FormatInt(max, 10)+" bytes")
		apiError(w, f, http.StatusRequestEntityTooLarge, "request_too_large", fmt.Sprintf("request body over %d bytes", max))
	case errors.Is(err, os.ErrDeadlineExceeded):
		s.refuse(r.URL.Path, "body too slow")
		w.Header().Set("connection", "close")
		apiError(w, f, http.StatusRequestTimeout, "request_timeout", "the request body did not arrive in time")
	default:
		s.refuse(r.URL.Path, "reading the body: "+err.Error())
		apiError(w, f, http.StatusBadRequest, "invalid_request_error", "reading the request body: "+err.Error())
	}
	return nil, false
}

// model serves one request of the Messages API (openAI false) or the
// Chat Completions API: the next script entry of the session, in the
// format and shape the request asks for, on the scenario's timing.
func (s *session) model(w http.ResponseWriter, r *http.Request, openAI bool) {
	f := provider.Format{OpenAI: openAI}
	if r.Method != http.MethodPost {
		s.refuse(r.Method+" "+r.URL.Path, "method not allowed")
		w.Header().Set("allow", "POST")
		apiError(w, f, http.StatusMethodNotAllowed, "invalid_request_error", "method "+r.Method+" not allowed")
		return
	}
	body, ok := s.readBody(w, r, f, s.e.opts.MaxRequestBytes)
	if !ok {
		return
	}
	var req struct {
		Stream        bool              `json:"stream"`
		Messages      []json.RawMessage `json:"messages"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Messages == nil {
		s.refuse(r.URL.Path, "not a request the API takes: a JSON object with messages")
		apiError(w, f, http.StatusBadRequest, "invalid_request_error", "the request body is not a JSON object with a messages array")
		return
	}
	f.Stream, f.IncludeUsage = req.Stream, req.StreamOptions.IncludeUsage
	turn, _ := llmwire.Turn(body)
	if h := r.Header.Get(TurnHeader); h != "" {
		n, err := strconv.ParseInt(h, 10, 64)
		if err != nil || n < 1 || n > maxRequestsPerEp {
			s.refuse(r.URL.Path, TurnHeader+" "+strconv.Quote(h)+": want a turn from 1 to "+strconv.Itoa(maxRequestsPerEp))
			apiError(w, f, http.StatusBadRequest, "invalid_request_error", TurnHeader+" must be a turn number from 1")
			return
		}
		turn = n
	}
	e := s.e
	step := r.Header.Get(providerserve.StepHeader)
	if step == "" && turn <= int64(len(e.plan.Steps)) {
		step = e.plan.Steps[turn-1]
	}

	s.mu.Lock()
	if s.ended || s.calls >= maxRequestsPerEp {
		s.mu.Unlock()
		s.refuse(r.URL.Path, "the episode is over or has had its requests")
		apiError(w, f, http.StatusConflict, "invalid_request_error", "this session's episode has ended or made its "+strconv.Itoa(maxRequestsPerEp)+" requests; reset it")
		return
	}
	s.calls++
	s.progressed(false)
	s.turns[turn]++
	call := "t" + strconv.FormatInt(turn, 10) + ".a" + strconv.FormatInt(s.turns[turn], 10)
	resp, entry := e.script.RespondAs(s.used, step, call, f)
	fault := "script_exhausted"
	retryAfter := int64(0)
	if entry >= 0 {
		fault = e.script.Entries[entry].Fault.Kind
		for _, u := range e.script.Entries[entry].Tools {
			s.uses[u.ID] = turn
			s.argvs[u.ID] = servedArgv(u)
		}
		if resp.Status == http.StatusTooManyRequests {
			retryAfter = e.script.Entries[entry].Fault.RetryAfterNs
			resp.Headers = e.retryAfterHeaders(resp.Headers, retryAfter)
		}
	}
	if !openAI && resp.Status >= 400 && len(resp.Pieces) == 1 {
		// The API's error body names the request, as its request-id
		// header does: the SDKs put it in the error they raise.
		body := provider.WithRequestID(resp.Pieces[0].Data, "req_"+call)
		resp.BodyBytes += int64(len(body) - len(resp.Pieces[0].Data))
		resp.Pieces = append([]provider.Piece{{DelayNs: resp.Pieces[0].DelayNs, Data: body}}, resp.Pieces[1:]...)
	}
	resp.Headers = e.rateLimitHeaders(resp.Headers, openAI, int(maxRequestsPerEp-s.calls), retryAfter, resp.Status)
	api := "anthropic"
	if openAI {
		api = "openai"
	}
	s.record(e.providerID, "provider", llmwire.Ev("request_received", llmwire.S("call", call), llmwire.S("from", e.agentID),
		llmwire.S("step", step), llmwire.I("entry", int64(entry)), llmwire.I("bytes", int64(len(body))), llmwire.I("status", int64(resp.Status)),
		llmwire.S("fault", fault), llmwire.I("turn", turn), llmwire.S("api", api), llmwire.B("stream", f.Stream),
		llmwire.S("retry", r.Header.Get("x-stainless-retry-count")), llmwire.I("retry_after_ns", retryAfter)))
	results, _ := llmwire.ToolResults(body)
	for _, tr := range results {
		s.record(e.providerID, "provider", llmwire.Ev("tool_result_received", llmwire.S("call", call), llmwire.S("id", tr.ID), llmwire.I("bytes", tr.Bytes)))
	}
	done := make(chan struct{})
	s.served[call] = served{turn: turn, done: done}
	s.mu.Unlock()
	defer close(done)
	e.logf("edge: %s %s turn %d → entry %d status %d fault %q", s.id, call, turn, entry, resp.Status, fault)
	sum := sha256.New()
	frames, sent, finished := s.write(w, r, &resp, !openAI && f.Stream, sum)
	servedSum := hex.EncodeToString(sum.Sum(nil))
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case finished && resp.Hang:
		s.record(e.providerID, "provider", llmwire.Ev("response_hang", llmwire.S("call", call), llmwire.I("frames", frames),
			llmwire.I("status", int64(resp.Status)), llmwire.B("complete", false), llmwire.I("bytes", sent), llmwire.S("content", "")))
	case finished:
		s.record(e.providerID, "provider", llmwire.Ev("response_end", llmwire.S("call", call), llmwire.I("frames", frames),
			llmwire.I("status", int64(resp.Status)), llmwire.B("complete", resp.Complete), llmwire.I("bytes", sent), llmwire.S("content", resp.Carried),
			llmwire.S("served", servedSum)))
	default:
		s.record(e.providerID, "provider", llmwire.Ev("response_aborted", llmwire.S("call", call), llmwire.I("frames", frames), llmwire.I("bytes", sent)))
	}
}

// retryAfterHeaders is a 429's headers with its retry-after scaled by
// the time scale, as every other delay is: retry-after in whole seconds,
// rounded up, and retry-after-ms, which the official SDKs read first,
// so an agent honouring either waits at least the schedule's delay
// (retry_budget judges the wait in schedule time).
func (e *Edge) retryAfterHeaders(hs []provider.Header, ns int64) []provider.Header {
	d := int64(e.scaled(ns))
	out := make([]provider.Header, 0, len(hs)+1)
	for _, h := range hs {
		if h.Name != "retry-after" && h.Name != "retry-after-ms" {
			out = append(out, h)
		}
	}
	secs := (d + int64(time.Second) - 1) / int64(time.Second)
	ms := (d + int64(time.Millisecond) - 1) / int64(time.Millisecond)
	return append(out, provider.Header{Name: "retry-after", Value: strconv.FormatInt(secs, 10)},
		provider.Header{Name: "retry-after-ms", Value: strconv.FormatInt(ms, 10)})
}

// Rate limits the edge's responses state: the requests an episode may
// make, and a token budget nothing spends (the schedule's 429s are the
// only limit an agent meets).
const rateLimitTokens = 1_000_000

// rateLimitHeaders adds the rate-limit headers of the API a response
// answers (anthropic-ratelimit-* or x-ratelimit-*), telling the truth
// about the schedule: the requests the episode has left, and for a 429
// none left until its retry-after (scaled, from now), the reset instant
// (RFC 3339) or delay (OpenAI's 1.5s form) where the retry-after
// headers say to come back. Any other response's limits reset now.
func (e *Edge) rateLimitHeaders(hs []provider.Header, openAI bool, left int, retryAfterNs int64, status int) []provider.Header {
	reqs, toks, wait := left, rateLimitTokens, time.Duration(0)
	if status == http.StatusTooManyRequests {
		reqs, toks, wait = 0, 0, e.scaled(retryAfterNs)
	}
	// The two dialects' rate-limit headers say the same things under
	// each API's own names, alike in shape on purpose: each list is what
	// that API sends.
	if openAI {
		reset := wait.String()
		return append(hs,
			provider.Header{Name: "x-ratelimit-limit-requests", Value: strconv.Itoa(maxRequestsPerEp)},
			provider.Header{Name: "x-ratelimit-remaining-requests", Value: strconv.Itoa(reqs)},
			provider.Header{Name: "x-ratelimit-reset-requests", Value: reset},
			provider.Header{Name: "x-ratelimit-limit-tokens", Value: strconv.Itoa(rateLimitTokens)},
			provider.Header{Name: "x-ratelimit-remaining-tokens", Value: strconv.Itoa(toks)},
			provider.Header{Name: "x-ratelimit-reset-tokens", Value: reset})
	}
	// Rounded up to the second RFC 3339 shows, so an agent waiting for
	// the reset never comes back before the retry-after.
	reset := time.Now().Add(wait).Add(time.Second - 1).UTC().Truncate(time.Second).Format(time.RFC3339)
	return append(hs,
		provider.Header{Name: "anthropic-ratelimit-requests-limit", Value: strconv.Itoa(maxRequestsPerEp)},
		provider.Header{Name: "anthropic-ratelimit-requests-remaining", Value: strconv.Itoa(reqs)},
		provider.Header{Name: "anthropic-ratelimit-requests-reset", Value: reset},
		provider.Header{Name: "anthropic-ratelimit-tokens-limit", Value: strconv.Itoa(rateLimitTokens)},
		provider.Header{Name: "anthropic-ratelimit-tokens-remaining", Value: strconv.Itoa(toks)},
		provider.Header{Name: "anthropic-ratelimit-tokens-reset", Value: reset})
}

// write sends resp, each piece at its scheduled instant (its delay
// added to the one before, scaled, counted from the request's arrival so
// lateness does not add up), a ping after message_start when withPing;
// every body byte written goes to sum too (response_end's served).
// finished is false when the client went away first; a hang waits for
// that. It returns the frames and body bytes sent.
func (s *session) write(w http.ResponseWriter, r *http.Request, resp *provider.Response, withPing bool, sum io.Writer) (frames, sent int64, finished bool) {
	ctx := r.Context()
	if resp.Never {
		<-ctx.Done()
		return 0, 0, false
	}
	fl, _ := w.(http.Flusher)
	at := time.Now()
	due := int64(0)
	tm := time.NewTimer(time.Hour) // one timer for every piece: reset, never reallocated
	defer tm.Stop()
	for i, p := range resp.Pieces {
		due += p.DelayNs
		when := at.Add(s.e.scaled(due))
		if !waitUntil(ctx, tm, when) {
			return frames, sent, false
		}
		if i == 0 {
			for _, h := range resp.Headers {
				w.Header().Set(h.Name, h.Value)
			}
			switch {
			case resp.Cut:
				// Promise the whole body and send half: the client meets
				// the connection closing inside it.
				w.Header().Set("content-length", strconv.Itoa(2*len(p.Data)+1))
			case !resp.Hang && len(resp.Pieces) == 1:
				w.Header().Set("content-length", strconv.Itoa(len(p.Data)))
			}
			w.WriteHeader(resp.Status)
		}
		if len(p.Data) > 0 {
			if _, err := w.Write(p.Data); err != nil {
				return frames, sent, false
			}
			sum.Write(p.Data)
			sent += int64(len(p.Data))
		}
		frames++
		if i == 0 && withPing && resp.Status == http.StatusOK && bytes.HasPrefix(p.Data, []byte("event: message_start")) {
			w.Write(providerserve.Ping)
			sum.Write(providerserve.Ping)
			sent += int64(len(providerserve.Ping))
			frames++
		}
		if fl != nil {
			fl.Flush()
		}
		if s.e.pieceLate != nil {
			s.e.pieceLate(time.Since(when))
		}
	}
	// A Cut body ends here, short of its content-length: net/http closes
	// the connection rather than reuse it, and the client meets the end
	// inside the body.
	if resp.Hang {
		<-ctx.Done()
	}
	return frames, sent, true
}

// waitUntil waits on tm until t, or until ctx ends (false). An idle Go
// process sleeps in the poller with millisecond resolution, so a timer
// fires up to a millisecond late (the median piece was 0.6 ms late):
// the timer wakes it spinWindow early and the rest is spent yielding,
// a chunk at most spinWindow of one core.
func waitUntil(ctx context.Context, tm *time.Timer, t time.Time) bool {
	if d := time.Until(t) - spinWindow; d > 0 {
		tm.Reset(d)
		select {
		case <-tm.C:
		case <-ctx.Done():
			return false
		}
	}
	for time.Now().Before(t) {
		if ctx.Err() != nil {
			return false
		}
		runtime.Gosched()
	}
	return ctx.Err() == nil
}

// spinWindow is how early waitUntil's timer fires (a variable only so
// BenchmarkEdge_ChunkLateness can compare it with none).
var spinWindow = 1500 * time.Microsecond

// sleepUntil waits until t, or until ctx ends (false).
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
		return false
	}
}
