package edge

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/detsim/detsim/internal/realtime"
)

// TestToolRun_TreeEnds: a tool use whose command leaves processes
// behind, one of them in a session of its own (setsid), ends with none
// of them running, however its tree is known (a cgroup where one is
// writable, the subreaper fallback always), and the bundle records the
// leak as the tool's, ended by the edge; a command that leaves nothing
// records no leak, and the edge's cgroups are gone after. A cancelled
// tool use's tree ends as well, with no leak recorded: the agent ended
// it.
func TestToolRun_TreeEnds(t *testing.T) {
	for _, mode := range []string{"cgroup", "subreaper"} {
		t.Run(mode, func(t *testing.T) {
			trees.once.Do(setupCgroups)
			if mode == "cgroup" && trees.parent == "" {
				t.Skip("no writable cgroup v2 here")
			}
			cgroupsOff.Store(mode == "subreaper")
			defer cgroupsOff.Store(false)
			for _, c := range []struct {
				name   string
				argv   []string
				cancel bool
				leaks  bool
			}{
				{"leaves_two", []string{"sh", "-c", "setsid sleep 777 & sleep 776 & echo started"}, false, true},
				{"leaves_none", []string{"sh", "-c", "sleep 0 & wait; echo started"}, false, false},
				{"cancelled", []string{"sh", "-c", "setsid sleep 775 & sleep 774 & echo started; exec sleep 773"}, true, false},
			} {
				t.Run(c.name, func(t *testing.T) {
					r := startWith(t, scenario(t, "[[script]]\n"+clean, `effects = [{ effect = "success" }]`, ""), Options{TimeScale: 0.01, Allow: []string{"sh"}}, nil)
					cancel, stdout, stderr, code := startToolRun(t, r, c.argv)
					if c.cancel {
						realtime.WaitFor(t, "the sleeps to start", 10*time.Second, func() bool { return len(aliveCmds("sleep 773", "sleep 774", "sleep 775")) == 3 })
						cancel()
					}
					got := receive(t, "tool-run to exit", code)
					if want := map[bool]int{false: 0, true: 130}[c.cancel]; got != want {
						t.Errorf("exit %d, want %d; stderr %s", got, want, stderr.String())
					}
					if !c.cancel && stdout.String() != "started\n" {
						t.Errorf("stdout %q, want the command's", stdout.String())
					}
					sleeps := []string{"sleep 777", "sleep 776", "sleep 775", "sleep 774", "sleep 773"}
					realtime.WaitFor(t, "no sleep the tool started to run", 10*time.Second, func() bool { return len(aliveCmds(sleeps...)) == 0 })
					events := eventsOf(t, r.stop()[0])
					var leaks []map[string]any
					for line := range bytes.Lines(events) {
						var ev struct {
							Event map[string]any `json:"event"`
						}
						if json.Unmarshal(line, &ev) == nil && ev.Event["type"] == "tool_leak" {
							leaks = append(leaks, ev.Event)
						}
					}
					if !c.leaks {
						if len(leaks) != 0 {
							t.Errorf("a leak recorded for a tool that left nothing: %v", leaks)
						}
					} else {
						if len(leaks) != 1 {
							t.Fatalf("%d tool_leak records, want 1:\n%s", len(leaks), events)
						}
						l := leaks[0]
						pids, _ := l["pids"].([]any)
						cmds, _ := l["commands"].([]any)
						if l["call"] != "t1.toolu_1" || l["by"] != "edge" || l["via"] != mode || l["count"] != float64(2) || len(pids) != 2 || len(cmds) != 2 {
							t.Errorf("the leak record %v, want call t1.toolu_1, by edge, via %s, the two sleeps' pids and commands", l, mode)
						}
					}
					if mode == "cgroup" {
						if left, _ := filepath.Glob(filepath.Join(trees.parent, "run-"+strconv.Itoa(os.Getpid())+"-*")); len(left) > 0 {
							t.Errorf("the run's cgroups are still there: %v", left)
						}
					}
				})
			}
		})
	}
}

// TestSweepCgroups: at its next start the edge removes the empty run
// cgroups a crashed edge left, and nothing else under its parent.
func TestSweepCgroups(t *testing.T) {
	trees.once.Do(setupCgroups)
	if trees.parent == "" {
		t.Skip("no writable cgroup v2 here")
	}
	dead := 1 << 22 // above pid_max's default: no edge of that pid runs
	for _, err := os.Stat("/proc/" + strconv.Itoa(dead)); err == nil; _, err = os.Stat("/proc/" + strconv.Itoa(dead)) {
		dead++
	}
	stale := filepath.Join(trees.parent, "run-"+strconv.Itoa(dead)+"-1")
	other := filepath.Join(trees.parent, "someone-else")
	for _, d := range []string{stale, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	defer os.Remove(other)
	defer os.Remove(stale)
	sweepCgroups(trees.parent)
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("%s, a crashed edge's empty run cgroup, is still there", stale)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("%s, not a run cgroup, was removed", other)
	}
}

// aliveCmds is the processes whose command line is one of cmds.
func aliveCmds(cmds ...string) []int {
	var out []int
	for _, p := range procs() {
		if p.state != 'Z' && slices.Contains(cmds, commandLine(p.pid)) {
			out = append(out, p.pid)
		}
	}
	return out
}
