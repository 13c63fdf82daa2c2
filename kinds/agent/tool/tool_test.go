package tool_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/agent/llmwire"
	"github.com/detsim/detsim/kinds/agent/tool"
	"github.com/detsim/detsim/rng"
)

// driver runs one tool host without the engine: it fires the host's
// timers in order and writes every action as a line of a transcript.
type driver struct {
	h      hosts.Host
	timers []hosts.Action
	out    strings.Builder
}

func newDriver(t *testing.T, effects ...map[string]any) *driver {
	t.Helper()
	cfg := map[string]any{}
	if effects != nil {
		arr := make([]any, len(effects))
		for i, e := range effects {
			arr[i] = e
		}
		cfg["effects"] = arr
	}
	if errs := tool.Kind.Validate(cfg, []string{"agent", "tool"}); len(errs) > 0 {
		t.Fatalf("config refused: %v", errs)
	}
	return &driver{h: tool.Kind.New("tool", cfg, "up", []string{"agent", "tool"}, rng.New(1).Life("tool", 0))}
}

func (d *driver) note(now int64, acts []hosts.Action) {
	for _, a := range acts {
		switch a.Kind() {
		case hosts.ActRecord:
			fmt.Fprintf(&d.out, "%d record %s\n", now, a.Event().AppendJSON(nil))
		case hosts.ActSend:
			r := a.Msg().(*llmwire.ToolResult)
			fmt.Fprintf(&d.out, "%d send %s %s %s exit=%d bytes=%d\n", now, a.To(), r.Call, r.Status, r.Exit, len(r.Output))
		case hosts.ActTimer:
			d.timers = append(d.timers, a)
		}
	}
}

func (d *driver) recv(m hosts.Message, now int64) { d.note(now, d.h.Recv(m, now)) }

func (d *driver) call(id, name string, now int64) {
	d.recv(&hosts.Delivery{From: "agent", Payload: &llmwire.ToolCall{Call: id, Name: name}}, now)
}

// until fires every timer due by end, earliest first.
func (d *driver) until(end int64) {
	for len(d.timers) > 0 {
		i := 0
		for j, a := range d.timers {
			if a.At() < d.timers[i].At() {
				i = j
			}
		}
		a := d.timers[i]
		if a.At() > end {
			return
		}
		d.timers = slices.Delete(d.timers, i, i+1)
		d.recv(&hosts.TimerFired{Token: a.Token()}, a.At())
	}
}

// TestTool_Effects: each scripted effect records started, partial where
// it writes half its output, then exactly one end state, and answers the
// caller with the status, exit code and bytes the catalog gives it.
func TestTool_Effects(t *testing.T) {
	for _, tc := range []struct {
		effect map[string]any
		want   string
	}{
		{nil, `0 record {"type":"tool_state","call":"c1","state":"started","effect":"success","bytes":0}
0 record {"type":"tool_state","call":"c1","state":"committed","effect":"success","bytes":64}
0 send agent c1 ok exit=0 bytes=64
`},
		{map[string]any{"effect": "success"}, `0 record {"type":"tool_state","call":"c1","state":"started","effect":"success","bytes":0}
1000000 record {"type":"tool_state","call":"c1","state":"committed","effect":"success","bytes":64}
1000000 send agent c1 ok exit=0 bytes=64
`},
		{map[string]any{"effect": "exit_nonzero", "exit_code": int64(3), "duration_ns": int64(10), "output_bytes": int64(5)},
			`0 record {"type":"tool_state","call":"c1","state":"started","effect":"exit_nonzero","bytes":0}
10 record {"type":"tool_state","call":"c1","state":"failed","effect":"exit_nonzero","bytes":5}
10 send agent c1 failed exit=3 bytes=5
`},
		{map[string]any{"effect": "huge_output"}, `0 record {"type":"tool_state","call":"c1","state":"started","effect":"huge_output","bytes":0}
1000000 record {"type":"tool_state","call":"c1","state":"committed","effect":"huge_output","bytes":1048576}
1000000 send agent c1 ok exit=0 bytes=1048576
`},
		{map[string]any{"effect": "binary_output", "output_bytes": int64(300)}, `0 record {"type":"tool_state","call":"c1","state":"started","effect":"binary_output","bytes":0}
1000000 record {"type":"tool_state","call":"c1","state":"committed","effect":"binary_output","bytes":300}
1000000 send agent c1 ok exit=0 bytes=300
`},
		{map[string]any{"effect": "partial_then_fail", "duration_ns": int64(11), "output_bytes": int64(10)},
			`0 record {"type":"tool_state","call":"c1","state":"started","effect":"partial_then_fail","bytes":0}
5 record {"type":"tool_state","call":"c1","state":"partial","effect":"partial_then_fail","bytes":5}
11 record {"type":"tool_state","call":"c1","state":"failed","effect":"partial_then_fail","bytes":5}
11 send agent c1 failed exit=1 bytes=5
`},
		{map[string]any{"effect": "cancelled", "duration_ns": int64(20), "output_bytes": int64(8)},
			`0 record {"type":"tool_state","call":"c1","state":"started","effect":"cancelled","bytes":0}
10 record {"type":"tool_state","call":"c1","state":"partial","effect":"cancelled","bytes":4}
20 record {"type":"tool_state","call":"c1","state":"cancelled","effect":"cancelled","bytes":4}
20 send agent c1 cancelled exit=130 bytes=4
`},
		{map[string]any{"effect": "hang"}, `0 record {"type":"tool_state","call":"c1","state":"started","effect":"hang","bytes":0}
`},
	} {
		name := "no effect left"
		if tc.effect != nil {
			name = tc.effect["effect"].(string)
		}
		t.Run(name, func(t *testing.T) {
			var d *driver
			if tc.effect == nil {
				d = newDriver(t)
			} else {
				d = newDriver(t, tc.effect)
			}
			d.call("c1", "bash", 0)
			d.until(1 << 62)
			if got := d.out.String(); got != tc.want {
				t.Errorf("transcript:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestTool_PickAndCancel: a call takes the effect keyed by its id, else
// by its tool's name, else the first unkeyed one, each once; a
// ToolCancel ends that run keeping what it wrote, and a Cancel mutation
// ends every run in progress.
func TestTool_PickAndCancel(t *testing.T) {
	d := newDriver(t,
		map[string]any{"effect": "hang"},
		map[string]any{"name": "grep", "effect": "partial_then_fail", "duration_ns": int64(100), "output_bytes": int64(6)},
		map[string]any{"call": "c3", "effect": "hang"},
	)
	d.call("c1", "grep", 0) // by name
	d.call("c2", "ls", 0)   // the unkeyed one
	d.call("c3", "ls", 0)   // by id
	d.call("c4", "ls", 0)   // none left: succeeds at once
	d.until(60)
	if s := tool.Summary(d.h.Snapshot()); s != "effects 3/3 used · c1 partial_then_fail partial · c2 hang started · c3 hang started" {
		t.Errorf("summary %q", s)
	}
	d.recv(&hosts.Delivery{From: "agent", Payload: &llmwire.ToolCancel{Call: "c1"}}, 70)
	d.recv(&hosts.Cancel{}, 80)
	if s := tool.Summary(d.h.Snapshot()); s != "effects 3/3 used · idle" {
		t.Errorf("summary after cancels %q", s)
	}
	const want = `0 record {"type":"tool_state","call":"c1","state":"started","effect":"partial_then_fail","bytes":0}
0 record {"type":"tool_state","call":"c2","state":"started","effect":"hang","bytes":0}
0 record {"type":"tool_state","call":"c3","state":"started","effect":"hang","bytes":0}
0 record {"type":"tool_state","call":"c4","state":"started","effect":"success","bytes":0}
0 record {"type":"tool_state","call":"c4","state":"committed","effect":"success","bytes":64}
0 send agent c4 ok exit=0 bytes=64
50 record {"type":"tool_state","call":"c1","state":"partial","effect":"partial_then_fail","bytes":3}
70 record {"type":"tool_state","call":"c1","state":"cancelled","effect":"partial_then_fail","bytes":3,"by":"tool_cancel"}
70 send agent c1 cancelled exit=130 bytes=3
80 record {"type":"tool_state","call":"c2","state":"cancelled","effect":"hang","bytes":0,"by":"cancel_mutation"}
80 send agent c2 cancelled exit=130 bytes=0
80 record {"type":"tool_state","call":"c3","state":"cancelled","effect":"hang","bytes":0,"by":"cancel_mutation"}
80 send agent c3 cancelled exit=130 bytes=0
`
	if got := d.out.String(); got != want {
		t.Errorf("transcript:\n%s\nwant:\n%s", got, want)
	}
	// The timer of c1's cancelled run is stale: it does nothing.
	d.out.Reset()
	d.until(1 << 62)
	if got := d.out.String(); got != "" {
		t.Errorf("after the cancels:\n%s", got)
	}
}

// TestTool_CloneIsIndependent: the engine's checkpoints clone hosts; a
// clone's runs and used effects are its own.
func TestTool_CloneIsIndependent(t *testing.T) {
	d := newDriver(t, map[string]any{"effect": "hang"})
	c := d.h.Clone()
	d.call("c1", "x", 0)
	if got, want := string(c.Snapshot()), `{"id":"tool","effects":1,"used":0,"runs":[]}`; got != want {
		t.Errorf("clone's snapshot %s, want %s", got, want)
	}
	if got, want := string(d.h.Snapshot()), `{"id":"tool","effects":1,"used":1,"runs":[{"call":"c1","effect":"hang","state":"started"}]}`; got != want {
		t.Errorf("snapshot %s, want %s", got, want)
	}
}

// TestTool_Validate names every bad field of kind_config by its path.
func TestTool_Validate(t *testing.T) {
	cfg := map[string]any{
		"effects": []any{
			map[string]any{"effect": "explode"},
			map[string]any{"effect": "success", "exit_code": int64(2)},
			map[string]any{"duration_ns": int64(-1), "output_bytes": "big", "colour": "red"},
		},
		"retries": int64(1),
	}
	var got []string
	for _, e := range tool.Kind.Validate(cfg, nil) {
		got = append(got, e.Field+": "+e.Msg)
	}
	want := []string{
		"kind_config.retries: unknown key (accepted: effects, idempotent)",
		`kind_config.effects[0].effect: unknown value "explode" (one of: success, exit_nonzero, hang, huge_output, binary_output, partial_then_fail, cancelled)`,
		"kind_config.effects[1].exit_code: only exit_nonzero and partial_then_fail exit nonzero",
		"kind_config.effects[2].colour: unknown key (accepted: call, name, effect, duration_ns, output_bytes, exit_code)",
		"kind_config.effects[2].duration_ns: must be in [0, 4611686018427387904], got -1",
		"kind_config.effects[2].output_bytes: must be an integer, got a string",
	}
	if !slices.Equal(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTool_Idempotent: a tool declared idempotent says so on each run's
// started record (tool_run_once lets its use run again); any other
// tool's records are as before, and a value that is not a boolean is
// refused.
func TestTool_Idempotent(t *testing.T) {
	for _, decl := range []bool{false, true} {
		cfg := map[string]any{}
		if decl {
			cfg["idempotent"] = true
		}
		if errs := tool.Kind.Validate(cfg, nil); len(errs) > 0 {
			t.Fatalf("config refused: %v", errs)
		}
		d := &driver{h: tool.Kind.New("tool", cfg, "up", nil, rng.New(1).Life("tool", 0))}
		d.call("t1.toolu_1", "bash", 0)
		got := d.out.String()
		want := `"state":"started","effect":"success","bytes":0}`
		if decl {
			want = `"state":"started","effect":"success","bytes":0,"idempotent":true}`
		}
		if !strings.Contains(got, want) || tool.Idempotent(cfg) != decl {
			t.Errorf("idempotent %v: %s, want %s", decl, got, want)
		}
	}
	if errs := tool.Kind.Validate(map[string]any{"idempotent": "yes"}, nil); len(errs) != 1 || !strings.Contains(errs[0].Msg, "boolean") {
		t.Errorf("idempotent = \"yes\": %v, want one error naming a boolean", errs)
	}
}
