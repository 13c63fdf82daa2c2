package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/kinds/echo"
)

// TestOutsideKind_Example builds examples/outside-kind as what it is, a
// module outside this one that calls Main with a kind of its own, and
// runs its library: the failing seed fails single_holder, the fix on the
// same seed passes it, and list shows its scenarios and none of the
// core's SWIM, raft or agent ones, which need kinds it was not built
// with. The build is offline (GOPROXY=off): without the modules in the
// cache it skips, unless CI=true.
func TestOutsideKind_Example(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a module of its own")
	}
	bin := filepath.Join(t.TempDir(), "ringsim")
	build := exec.Command("go", "build", "-o", bin, "./cmd/ringsim")
	build.Dir = filepath.Join("..", "examples", "outside-kind")
	build.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		if os.Getenv("CI") != "true" && bytes.Contains(out, []byte("GOPROXY=off")) {
			t.Skipf("the outside module's dependencies are not in the module cache:\n%s", out)
		}
		t.Fatalf("building examples/outside-kind: %v\n%s", err, out)
	}
	outcome := func(scenario string, wantCode int) string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "b")
		cmd := exec.Command(bin, "--batch", "--out", dir, scenario)
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != wantCode {
			t.Fatalf("%s: exit %d (%v), want %d\n%s", scenario, code, err, wantCode, out)
		}
		raw, err := os.ReadFile(filepath.Join(dir, "verdicts.json"))
		if err != nil {
			t.Fatal(err)
		}
		var vs []struct{ Kind, Outcome string }
		if err := json.Unmarshal(raw, &vs); err != nil || len(vs) != 1 || vs[0].Kind != "single_holder" {
			t.Fatalf("%s: verdicts %s (%v), want one single_holder", scenario, raw, err)
		}
		return vs[0].Outcome
	}
	if got := outcome("ring/lossy", exitFailed); got != "Fail" {
		t.Errorf("ring/lossy (the failing seed): single_holder %s, want Fail", got)
	}
	if got := outcome("ring/lossy_fixed", exitOK); got != "Pass" {
		t.Errorf("ring/lossy_fixed (the fix, same seed): single_holder %s, want Pass", got)
	}
	list, err := exec.Command(bin, "list").CombinedOutput()
	if err != nil {
		t.Fatalf("list: %v\n%s", err, list)
	}
	if !strings.Contains(string(list), "ring/lossy ") || strings.Contains(string(list), "gossip_flap") {
		t.Errorf("list shows, want the ring's scenarios and none of the core's SWIM ones:\n%s", list)
	}
}

// TestRun_RefusesABadKind: a kind Main is handed that the registry
// refuses stops the command with exit 2 before it reads an argument,
// naming the kind and the field; the core's own assertion names are
// taken too.
func TestRun_RefusesABadKind(t *testing.T) {
	twin := struct{ hosts.Kind }{echo.Kind}
	coreName := oracleKind{Kind: echo.Kind, tag: "echo2", a: &hosts.Assertions{
		Kinds: []hosts.AssertionKind{{Name: "event_count", Fresh: func() ([]hosts.Slot, func() hosts.AssertionParams) { return nil, nil },
			Holds: func(hosts.AssertionParams) bool { return false }}},
		Judge: func([]hosts.AssertionParams) hosts.Judge { return nil },
	}}
	for _, c := range []struct {
		name  string
		kinds []hosts.Kind
		want  string
	}{
		{"a name already taken", []hosts.Kind{echo.Kind, twin}, `detsim: kind "echo": Tag: name already taken`},
		{"a core assertion's name", []hosts.Kind{coreName}, `detsim: kind "echo2": Assertions.Kinds[0].Name: name "event_count" already taken by the core's`},
		{"no kind", nil, "no host kind"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := Run([]string{"list"}, &out, &errb, c.kinds...); code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(errb.String(), c.want) || out.Len() > 0 {
				t.Errorf("stderr %q, want %q; stdout %q, want nothing", errb.String(), c.want, out.String())
			}
		})
	}
}

// oracleKind is a kind's runtime under another tag, with assertions
// (hosts.Oracle).
type oracleKind struct {
	hosts.Kind
	tag string
	a   *hosts.Assertions
}

func (k oracleKind) Tag() string                   { return k.tag }
func (k oracleKind) Assertions() *hosts.Assertions { return k.a }

// TestRun_KindsAloneOrWithTheBuiltIns: the caller chooses the kinds
// every command sees. With echo alone, list shows the core's echo
// scenario and leaves out those of kinds the binary lacks, and a run of
// one still works; with the built-in kinds, the SWIM ones are back.
func TestRun_KindsAloneOrWithTheBuiltIns(t *testing.T) {
	list := func(kinds ...hosts.Kind) string {
		var out, errb bytes.Buffer
		if code := Run([]string{"list"}, &out, &errb, kinds...); code != exitOK {
			t.Fatalf("list: exit %d\n%s", code, errb.String())
		}
		return out.String()
	}
	alone := list(echo.Kind)
	if !strings.Contains(alone, "reference/echo_parity") || strings.Contains(alone, "gossip_flap") || strings.Contains(alone, "does not load") {
		t.Errorf("list with echo alone:\n%s", alone)
	}
	if all := list(builtin.Kinds()...); !strings.Contains(all, "reproduction/gossip_flap") {
		t.Errorf("list with the built-in kinds has no reproduction/gossip_flap:\n%s", all)
	}
	var out, errb bytes.Buffer
	if code := Run([]string{"--batch", "--out", filepath.Join(t.TempDir(), "b"), "reference/echo_parity"}, &out, &errb, echo.Kind); code != exitOK {
		t.Errorf("--batch reference/echo_parity with echo alone: exit %d\n%s", code, errb.String())
	}
}
