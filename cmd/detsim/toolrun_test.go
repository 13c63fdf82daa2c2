package main

import (
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

	"github.com/detsim/detsim/edge"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/realtime"
	"github.com/detsim/detsim/providerserve"
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
	e, err := edge.New(sc, edge.Options{Out: filepath.Join(t.TempDir(), "out"), TimeScale: 0.01, Allow: []string{"echo"}, IdleStop: -1, Logf: logf, Key: "dsk_edge"})
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
	defer func() { stop(); <-served }()
	url := "http://" + ln.Addr().String()
	key := "dsk_edge"
	post := func(path, body string) int {
		req, _ := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
		req.Header.Set("content-type", "application/json")
		req.Header.Set("x-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var made struct {
			APIKey string `json:"api_key"`
		}
		if json.NewDecoder(resp.Body).Decode(&made) == nil && made.APIKey != "" {
			key = made.APIKey // the session's routes take the session's key
		}
		return resp.StatusCode
	}
	post("/sessions", `{"id":"a"}`)
	if code := post("/s/a/v1/messages", `{"messages":[{"role":"user","content":"hi"}]}`); code != http.StatusOK {
		t.Fatalf("the model call: %d", code)
	}

	child := exec.Command(bin, "tool-run", "--session", url+"/s/a", "--tool", "bash", "--id", "toolu_1", "--", "echo", "hi")
	child.Env = append(os.Environ(), "DETSIM_EDGE_KEY="+key)
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
