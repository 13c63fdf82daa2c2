package edge

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/detsim/detsim/internal/flagargs"
)

// ToolRunUsage is `detsim tool-run -h`.
const ToolRunUsage = `usage: detsim tool-run [--session URL] [--tool NAME] [--id TOOL_USE_ID] -- COMMAND [ARGS...]

For an agent that spawns its tools itself: spawn this instead of COMMAND.
It asks the edge (detsim edge) to run COMMAND ARGS as that tool use,
under the scenario's tool effect for it (nonzero exit, hang, huge, binary
or partial output, cancellation mid-effect), writes the output the edge
returns to stdout and exits with the run's exit code. SIGINT or SIGTERM
(the agent cancelling or timing out its child) cancels the run at the
edge, which records it, and exits 130. COMMAND must be on the edge's
--allow list. Each flag may come from the environment instead, so an
agent can set them once: DETSIM_EDGE_SESSION (the session's base URL,
http://127.0.0.1:8788/s/NAME), DETSIM_TOOL, DETSIM_TOOL_USE_ID. The
session's key (the api_key its creation answered) comes from the
environment alone, DETSIM_EDGE_KEY, never the command line another user
can read.

Exit: the run's exit code (0 ok; 130 cancelled), 2 invalid input, 125
the edge refused the run or could not be reached.

flags:
`

// ToolRun is `detsim tool-run`: COMMAND run as a tool use through the
// session's tool endpoint. ctx ending (the CLI ends it on SIGINT and
// SIGTERM) cancels the run at the edge.
func ToolRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tool-run", flag.ContinueOnError)
	session := fs.String("session", os.Getenv("DETSIM_EDGE_SESSION"), "the session's base URL (http://127.0.0.1:PORT/s/NAME)")
	toolName := fs.String("tool", os.Getenv("DETSIM_TOOL"), "the tool's name, as the model called it")
	id := fs.String("id", os.Getenv("DETSIM_TOOL_USE_ID"), "the tool use id the model sent")
	argv, err := flagargs.Interspersed(fs, args)
	if err != nil {
		return flagError(fs, err, ToolRunUsage, stdout, stderr)
	}
	u, err := url.Parse(*session)
	switch {
	case len(argv) == 0:
		err = fmt.Errorf("no COMMAND after --")
	case os.Getenv("DETSIM_EDGE_KEY") == "":
		err = fmt.Errorf("DETSIM_EDGE_KEY is not set: the session's api_key, which its requests present")
	case *session == "" || *toolName == "" || *id == "":
		err = fmt.Errorf("--session, --tool and --id (or DETSIM_EDGE_SESSION, DETSIM_TOOL, DETSIM_TOOL_USE_ID) are needed")
	case err != nil || u.Scheme != "http" || !strings.Contains(u.Path, "/s/"):
		err = fmt.Errorf("--session %q: want the session's base URL, http://127.0.0.1:PORT/s/NAME", *session)
	case strings.ContainsAny(*toolName+*id, "/?#"):
		err = fmt.Errorf("--tool %q, --id %q: a name and an id are one path segment each", *toolName, *id)
	}
	if err != nil {
		fmt.Fprintf(stderr, "detsim: tool-run: %v\nrun 'detsim help tool-run' for usage\n", err)
		return 2
	}
	base := strings.TrimSuffix(*session, "/") + "/tools/" + *toolName
	body, _ := json.Marshal(toolRequest{ID: *id, Argv: argv})

	// The run's request is not tied to ctx: a cancellation goes to the
	// edge as one, and the edge's answer (cancelled, with what the run
	// had written) still comes back on this request.
	type answer struct {
		code int
		body []byte
		err  error
	}
	got := make(chan answer, 1)
	key := os.Getenv("DETSIM_EDGE_KEY")
	go func() {
		req, _ := http.NewRequest(http.MethodPost, base, bytes.NewReader(body))
		req.Header.Set("content-type", "application/json")
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(io.LimitReader(resp.Body, 3*DefaultMaxToolOutput))
		got <- answer{resp.StatusCode, b, err}
	}()
	var a answer
	select {
	case a = <-got:
	case <-ctx.Done():
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(cctx, http.MethodPost, base+"/"+*id+"/cancel", nil)
		req.Header.Set("x-api-key", key)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		cancel()
		select {
		case a = <-got:
		case <-time.After(10 * time.Second):
			fmt.Fprintln(stderr, "detsim: tool-run: cancelled; the edge did not answer")
			return 130
		}
	}
	if a.err != nil {
		fmt.Fprintf(stderr, "detsim: tool-run: %s: %v\n", base, a.err)
		return 125
	}
	if a.code != http.StatusOK {
		fmt.Fprintf(stderr, "detsim: tool-run: the edge refused the run (%d): %s\n", a.code, bytes.TrimSpace(a.body))
		return 125
	}
	var res toolResponse
	if err := json.Unmarshal(a.body, &res); err != nil {
		fmt.Fprintf(stderr, "detsim: tool-run: the edge's answer: %v\n", err)
		return 125
	}
	out := []byte(res.Output)
	if res.OutputBase64 != "" {
		if out, err = base64.StdEncoding.DecodeString(res.OutputBase64); err != nil {
			fmt.Fprintf(stderr, "detsim: tool-run: the edge's output: %v\n", err)
			return 125
		}
	}
	stdout.Write(out)
	switch {
	case res.Status == "cancelled":
		return 130
	case res.Status != "ok" && res.ExitCode == 0:
		return 1 // failed, though the effect named no code
	}
	return res.ExitCode
}
