package edge

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolRun: an agent that spawns `detsim tool-run -- CMD ARGS` in
// place of its command gets the command's output and the scenario's
// effect on it as a child's stdout and exit code: the real output and
// the forced exit code of exit_nonzero, the bytes of binary_output, 130
// for a hang its agent cancelled (the edge records the cancellation),
// 125 for a command off the allow-list.
func TestToolRun(t *testing.T) {
	for _, c := range []struct {
		name, effect string
		argv         []string
		cancel       bool
		exit         int
		out          func(t *testing.T, out []byte)
	}{
		{"exit_nonzero", `effects = [{ effect = "exit_nonzero", exit_code = 3 }]`, []string{"echo", "hello"}, false, 3,
			func(t *testing.T, out []byte) {
				if string(out) != "hello\n" {
					t.Errorf("stdout %q, want the command's", out)
				}
			}},
		{"binary_output", `effects = [{ effect = "binary_output", output_bytes = 300 }]`, []string{"echo", "hello"}, false, 0,
			func(t *testing.T, out []byte) {
				if len(out) != 300 || bytes.Contains(out, []byte("hello")) {
					t.Errorf("stdout %d bytes %q, want the effect's 300 binary bytes", len(out), out[:min(len(out), 40)])
				}
			}},
		{"hang_cancelled", `effects = [{ effect = "hang" }]`, []string{"echo", "hello"}, true, 130, nil},
		{"off_the_allow_list", "", []string{"rm", "-rf", "x"}, false, 125, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var e *Edge
			r := startWith(t, scenario(t, "[[script]]\n"+clean, c.effect, ""), Options{TimeScale: 0.01, Allow: []string{"echo"}}, func(x *Edge) { e = x })
			cancel, stdout, stderr, code := startToolRun(t, r, c.argv)
			if c.cancel {
				waitSession(t, e, "s", "the run to start", func(s *session) bool { return len(s.runs) == 1 })
				cancel()
			}
			got := receive(t, "tool-run to exit", code)
			if got != c.exit {
				t.Errorf("exit %d, want %d; stderr %s", got, c.exit, stderr.String())
			}
			if c.out != nil {
				c.out(t, stdout.Bytes())
			}
			events := eventsOf(t, r.stop()[0])
			if c.cancel && !bytes.Contains(events, []byte(`"state":"cancelled","effect":"hang","bytes":0,"by":"tool_cancel"`)) {
				t.Errorf("the cancelled run is not recorded as cancelled by the agent:\n%s", events)
			}
			if c.exit == 125 && !strings.Contains(stderr.String(), "allow-list") {
				t.Errorf("stderr %q, want the edge's refusal", stderr.String())
			}
		})
	}
}

// startToolRun opens session s on r, has its model answer once (the
// served response's tool call is toolu_1) and starts `detsim tool-run`
// for that call with argv; cancel ends the tool-run as its agent would,
// and code gets its exit code.
func startToolRun(t *testing.T, r *running, argv []string) (cancel context.CancelFunc, stdout, stderr *bytes.Buffer, code chan int) {
	t.Helper()
	base := r.session(t, "s")
	t.Setenv("DETSIM_EDGE_KEY", keyOf(base))
	post(t, base+"/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stdout, stderr, code = new(bytes.Buffer), new(bytes.Buffer), make(chan int, 1)
	args := append([]string{"--session", base, "--tool", "bash", "--id", "toolu_1", "--"}, argv...)
	go func() { code <- ToolRun(ctx, args, stdout, stderr) }()
	return cancel, stdout, stderr, code
}

// eventsOf is the records of ep's bundle (events.ndjson).
func eventsOf(t *testing.T, ep Episode) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ep.Bundle, "events.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
