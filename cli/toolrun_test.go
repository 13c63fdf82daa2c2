package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/realtime"
	"github.com/detsim/detsim/kinds/agent/edge"
	"github.com/detsim/detsim/kinds/agent/providerserve"
	"github.com/detsim/detsim/kinds/agent/tool"
	"github.com/detsim/detsim/scenarios"
)

// TestToolRun_SignalCancelsAtTheEdge: an agent times out the child it
// spawned, `detsim tool-run -- echo hi` on agent/tool_hang's hanging
// tool, and sends it SIGTERM: the run is cancelled at the edge (no
// longer running there), and the child exits 130.
func TestToolRun_SignalCancelsAtTheEdge(t *testing.T) {
	bin := detsimBinary(t)
	sc, err := scenarios.LoadLibrary("agent/tool_hang", builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 1)
	logf := func(format string, args ...any) {
		if strings.Contains(fmt.Sprintf(format, args...), "tool bash effect hang") {
			started <- struct{}{}
		}
	}
	url, post, key := startToolEdge(t, sc, []string{"echo"}, logf)
	servedToolUse(t, post)

	child := exec.Command(bin, "tool-run", "--session", url+"/s/a", "--tool", "bash", "--id", "toolu_1", "--", "echo", "hi")
	child.Env = append(os.Environ(), "DETSIM_EDGE_KEY="+key())
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	realtime.WaitFor(t, "the run to start at the edge", 10*time.Second, func() bool {
		select {
		case <-started:
			return true
		default:
			return false
		}
	})
	child.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	realtime.WaitFor(t, "tool-run to exit", 30*time.Second, func() bool {
		select {
		case err := <-done:
			if code := child.ProcessState.ExitCode(); code != 130 {
				t.Errorf("tool-run exited %d (%v), want 130", code, err)
			}
			return true
		default:
			return false
		}
	})
	if code := post("/s/a/tools/bash/toolu_1/cancel", ""); code != http.StatusNotFound {
		t.Errorf("the run is still in progress at the edge (its cancel answered %d)", code)
	}
}

// startToolEdge serves sc's edge on loopback for the test, allowing the
// commands allow, and returns its URL, a POST to it that presents the
// key its route takes and returns the status, and the key of the last
// session it made.
func startToolEdge(t *testing.T, sc *scenarios.Scenario, allow []string, logf func(string, ...any)) (string, func(path, body string) int, func() string) {
	t.Helper()
	const edgeKey = "dsk_edge"
	e, err := edge.New(sc, edge.Options{Out: filepath.Join(t.TempDir(), "out"), TimeScale: 0.01, Allow: allow, IdleStop: -1, Logf: logf, Key: edgeKey})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := providerserve.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan []edge.Episode, 1)
	go func() { eps, _ := e.Serve(ctx, ln); served <- eps }()
	t.Cleanup(func() { stop(); <-served })
	url := "http://" + ln.Addr().String()
	session := ""
	return url, func(path, body string) int {
		req, _ := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
		req.Header.Set("content-type", "application/json")
		req.Header.Set("x-api-key", edgeKey)
		if path != "/sessions" {
			req.Header.Set("x-api-key", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var made struct {
			APIKey string `json:"api_key"`
		}
		if path == "/sessions" && json.NewDecoder(resp.Body).Decode(&made) == nil {
			session = made.APIKey // the session's routes take the session's key
		}
		return resp.StatusCode
	}, func() string { return session }
}

// servedToolUse opens session a and has its model call served, which
// asks for tool use toolu_1 of tool bash.
func servedToolUse(t *testing.T, post func(path, body string) int) {
	t.Helper()
	post("/sessions", `{"id":"a"}`)
	if code := post("/s/a/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`); code != http.StatusOK {
		t.Fatalf("the model call: %d", code)
	}
}

// TestToolRun_BytesUntouched: `detsim tool-run`'s stdout is the tool's
// bytes, redirected to a file as an agent's child's would be: a tool
// that writes every byte value and a terminal title sequence (OSC)
// arrives byte for byte, not escaped as detsim's own messages are, and
// binary_output's bytes arrive as the edge served them.
func TestToolRun_BytesUntouched(t *testing.T) {
	bin := detsimBinary(t)
	data := []byte("\x1b]0;title\x07")
	for b := range 256 {
		data = append(data, byte(b))
	}
	file := filepath.Join(t.TempDir(), "bytes")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := scenarios.ReadLibrary(builtin.Registry(), "agent/tool_binary_output.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, effects string
		want          []byte
	}{
		{"the_tools_bytes", `effects = [{ effect = "success" }]`, data},
		{"binary_output", `effects = [{ effect = "binary_output", output_bytes = 4096 }]`, tool.Binary(4096)},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(string(lib), `effects = [{ effect = "binary_output", output_bytes = 4096 }]`, c.effects, 1)
			sc, err := scenarios.Parse("tool.toml", []byte(src), builtin.Registry(), nil)
			if err != nil {
				t.Fatal(err)
			}
			url, post, key := startToolEdge(t, sc, []string{"cat:any"}, nil) // the file is outside the tool directory
			servedToolUse(t, post)
			out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			var stderr strings.Builder
			child := exec.Command(bin, "tool-run", "--session", url+"/s/a", "--tool", "bash", "--id", "toolu_1", "--", "cat", file)
			child.Env = append(os.Environ(), "DETSIM_EDGE_KEY="+key())
			child.Stdout, child.Stderr = out, &stderr
			if err := child.Run(); err != nil {
				t.Fatalf("tool-run: %v; stderr %s", err, stderr.String())
			}
			got, err := os.ReadFile(out.Name())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, c.want) {
				t.Errorf("stdout is %d bytes, want the %d bytes as served\n got %q\nwant %q", len(got), len(c.want), got[:min(len(got), 64)], c.want[:min(len(c.want), 64)])
			}
		})
	}
}
