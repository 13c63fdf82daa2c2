package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/detsim/detsim/internal/gobin"
)

// detsimBinary builds the command once per test binary, so the tests below
// run it the way a user does: as a fresh process.
func detsimBinary(t *testing.T) string {
	return gobin.Build(t, "../cmd/detsim")
}

type result struct {
	code   int
	stdout string
	stderr string
}

// exitCase is a detsim command line and what it must do: exit with code,
// saying msg on stdout or stderr.
type exitCase struct {
	name string
	args []string
	code int
	msg  string
}

// checkExits runs each case as a subtest.
func checkExits(t *testing.T, cases []exitCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.check(t, detsim(t, c.args...)) })
	}
}

// check fails t unless r is what c wants.
func (c exitCase) check(t *testing.T, r result) {
	t.Helper()
	if r.code != c.code || !strings.Contains(r.stdout+r.stderr, c.msg) {
		t.Fatalf("exit %d, want %d with %q\nstdout: %s\nstderr: %s", r.code, c.code, c.msg, r.stdout, r.stderr)
	}
}

func detsim(t *testing.T, args ...string) result {
	t.Helper()
	return runResult(t, exec.Command(detsimBinary(t), args...))
}

// runResult runs cmd, a detsim, to its end: its exit code and output. A
// process that could not run fails the test.
func runResult(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}
}

func field(t *testing.T, out, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `\s+(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %q line in output:\n%s", name, out)
	}
	return m[1]
}

// TestGolden_FreshProcess runs the reference scenario in a fresh process
// and checks its digest and parity checksum against the golden the batch
// package keeps (spec §7.6): anything seeded from process state — a map
// order, an address, a clock — shows up here.
func TestGolden_FreshProcess(t *testing.T) {
	golden, err := os.ReadFile("../batch/testdata/golden_digests.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(golden)), "\n") {
		name := strings.Fields(line)[0]
		r := detsim(t, "--batch", "--out", filepath.Join(t.TempDir(), "b"), name)
		if r.code != 0 && r.code != 1 { // a reproduction's assertions fail by design
			t.Fatalf("%s: exit %d\n%s%s", name, r.code, r.stdout, r.stderr)
		}
		want := regexp.MustCompile(`digest=(\S+) parity=(\S+)`).FindStringSubmatch(line)
		if d, p := field(t, r.stdout, "digest"), field(t, r.stdout, "parity"); d != want[1] || p != want[2] {
			t.Fatalf("%s in a fresh process: digest %s parity %s, golden %s %s", name, d, p, want[1], want[2])
		}
	}
}

// TestBatch_ByteIdenticalAcrossProcesses runs one scenario twice in two
// processes and compares the bundles file by file, byte for byte.
func TestBatch_ByteIdenticalAcrossProcesses(t *testing.T) {
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, out := range []string{a, b} {
		if r := detsim(t, "--batch", "--seed", "11", "--out", out, "reference/echo_parity"); r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
	}
	files := 0
	filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "manifest.json" {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs of the same seed", rel)
		}
		files++
		return nil
	})
	if files < 5 {
		t.Fatalf("compared only %d files", files)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	notBundle := filepath.Join(dir, "file")
	os.WriteFile(notBundle, []byte("x"), 0o644)
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("name = 3\n[[peers]]\nid = 'a'\nkind = 'nope'\n"), 0o644)
	good := filepath.Join(dir, "out")
	checkExits(t, []exitCase{
		{"unknown flag", []string{"--batch", "--frobnicate", "reference/echo_parity"}, 2, "frobnicate"},
		{"missing scenario", []string{"--batch", filepath.Join(dir, "nope.toml")}, 2, "nope"},
		{"invalid scenario", []string{"--batch", bad}, 2, bad + ": "},
		{"bad seed", []string{"--batch", "--seed", "-1", "reference/echo_parity"}, 2, "--seed"},
		{"out is a file", []string{"--batch", "--out", notBundle, "reference/echo_parity"}, 2, "--out"},
		{"two scenarios", []string{"--batch", "a", "b"}, 2, "one scenario"},
		{"verify nothing", []string{"verify"}, 2, "BUNDLE"},
		{"verify not a bundle", []string{"verify", dir}, 2, "manifest"},
		{"ok", []string{"--batch", "--out", good, "reference/echo_parity"}, 0, ""},
		{"verify intact", []string{"verify", good}, 0, "intact"},
	})
	// Tamper with the bundle: verify must notice and exit 1.
	ev := filepath.Join(good, "events.ndjson")
	b, _ := os.ReadFile(ev)
	b[len(b)/2] ^= 1
	os.WriteFile(ev, b, 0o644)
	if r := detsim(t, "verify", good); r.code != 1 || !strings.Contains(r.stdout, "events.ndjson") {
		t.Fatalf("verify after tampering: exit %d\n%s", r.code, r.stdout)
	}
}

// TestBatchBreakOn_PrintsPanesAsPlainText: a CI log shows the stepper's
// panes at the breakpoint, with no terminal escapes.
func TestBatchBreakOn_PrintsPanesAsPlainText(t *testing.T) {
	r := detsim(t, "--batch", "--break-on", "type=mutation", "--width", "100", "reference/echo_parity")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "stopped   breakpoint type=mutation at step ") {
		t.Fatalf("no stop line:\n%s", r.stdout)
	}
	for _, want := range []string{"─ queue", "─ links", "mutation", "replay    detsim --seed 7 reference/echo_parity",
		"breaks    type=mutation\n", "breakpoints type=mutation"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("panes lack %q", want)
		}
	}
	if strings.Contains(r.stdout, "\x1b[") {
		t.Error("escape sequences in plain-text panes")
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if n := len([]rune(line)); n > 100 && !strings.HasPrefix(line, "replay") {
			t.Errorf("line of %d cells at width 100: %q", n, line)
			break
		}
	}
	if r := detsim(t, "--batch", "--break-on", "fail", "reproduction/gossip_flap"); r.code != 1 || !strings.Contains(r.stdout, "breakpoint fail") {
		t.Fatalf("break on the reproduction's first failure: exit %d\n%s", r.code, r.stdout)
	}
}

// The breakpoints printed are the ones set (it used to print "fail"
// whatever was asked), and names are checked against the run: a typo is
// a usage error naming the valid ones, never a breakpoint that cannot fire.
func TestBatchBreakOn_ChecksNamesAndPrintsWhatIsSet(t *testing.T) {
	r := detsim(t, "--batch", "--break-on", "type=state_transition subject=orch to=suspect", "--break-on", "fail=orch_no_flap", "reproduction/gossip_flap")
	if r.code != 0 || !strings.Contains(r.stdout, "breaks    type=state_transition subject=orch to=suspect, fail=orch_no_flap\n") ||
		!strings.Contains(r.stdout, "stopped   breakpoint type=state_transition subject=orch to=suspect at step") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for spec, want := range map[string]string{
		"fail=orch_no_flop":            `no assertion "orch_no_flop": did you mean "orch_no_flap"? (assertions: `,
		"type=state_transitoin":        `no event type "state_transitoin": did you mean "state_transition"? (types: broadcast_queue, cache_state_change, `,
		"host=orhc":                    `no host "orhc": did you mean "orch"? (hosts: `,
		"type=message_sent colour=red": `message_sent has no field "colour" (fields of message_sent: type, host, time, step, peer, message, `,
		"colour=red":                   `no event has a field "colour"`,
	} {
		r := detsim(t, "--batch", "--break-on", spec, "reproduction/gossip_flap")
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("--break-on %q: exit %d, stderr %q; want one containing %q", spec, r.code, r.stderr, want)
		}
	}
}

// detsim DIR on a bundle directory runs its scenario.toml (seed included):
// the stepper and --batch --break-on take the same path.
func TestBundleDirectoryOpensItsScenario(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "b")
	if r := detsim(t, "--batch", "--seed", "11", "--out", dir, "reference/echo_parity"); r.code != 0 {
		t.Fatalf("batch: exit %d %s", r.code, r.stderr)
	}
	r := detsim(t, "--batch", "--break-on", "step=10", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "replay    detsim --seed 11 "+dir) || !strings.Contains(r.stdout, "seed 11") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
