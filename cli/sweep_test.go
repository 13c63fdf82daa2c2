package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// propertyDir copies the sweep tests' echo property and its base into a
// temporary directory, with edits applied to the property, and returns
// the property's path.
func propertyDir(t *testing.T, edits ...string) string {
	t.Helper()
	dir := t.TempDir()
	base, err := os.ReadFile("../sweep/testdata/echo_base.toml")
	if err != nil {
		t.Fatal(err)
	}
	prop, err := os.ReadFile("../sweep/testdata/echo_lossy.toml")
	if err != nil {
		t.Fatal(err)
	}
	src := string(prop)
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(src, edits[i]) {
			t.Fatalf("%q not in the property", edits[i])
		}
		src = strings.Replace(src, edits[i], edits[i+1], 1)
	}
	os.WriteFile(filepath.Join(dir, "echo_base.toml"), base, 0o644)
	path := filepath.Join(dir, "p.toml")
	os.WriteFile(path, []byte(src), 0o644)
	return path
}

func TestSweep_ExitCodes(t *testing.T) {
	lossy := propertyDir(t)
	clean := propertyDir(t, "loss_prob_ppm = [0, 4_000]", "loss_prob_ppm = 0")
	expectFail := propertyDir(t, `expect = "pass"`, `expect = "fail"`)
	mostFail := propertyDir(t, `expect = "pass"`, "expect = \"fail\"\nmin_failing_percent = 90")
	inverted := propertyDir(t, "peers = [2, 4]", "peers = [4, 2]")
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	corpus := t.TempDir()
	checkExits(t, []exitCase{
		{"no property", []string{"sweep", "--seeds", "3"}, 2, "want one PROPERTY"},
		{"no seeds", []string{"sweep", clean}, 2, "--seeds"},
		{"zero seeds", []string{"sweep", clean, "--seeds", "0"}, 2, "--seeds"},
		{"bad start", []string{"sweep", clean, "--seeds", "2", "--start", "x"}, 2, "--start"},
		{"shard 3/2", []string{"sweep", clean, "--seeds", "4", "--shard", "3/2"}, 2, "want 1 <= i <= n"},
		{"shard garbage", []string{"sweep", clean, "--seeds", "4", "--shard", "half"}, 2, "want i/n"},
		{"unknown property", []string{"sweep", "nope", "--seeds", "4"}, 2, "no embedded property"},
		{"inverted space", []string{"sweep", inverted, "--seeds", "4"}, 2, "space.peers: [4, 2] is empty: min 4 is greater than max 2"},
		{"corpus not writable", []string{"sweep", lossy, "--seeds", "4", "--corpus", filepath.Join(file, "sub")}, 2, "corpus"},
		{"all pass", []string{"sweep", clean, "--seeds", "6", "--corpus", corpus}, 0, "expectation held"},
		{"failures", []string{"sweep", lossy, "--seeds", "6", "--corpus", corpus}, 1, "FAIL      seed 1"},
		{"expected failures", []string{"sweep", expectFail, "--seeds", "6"}, 0, "expectation held (at least 1% of seeds fail)"},
		{"too few failures", []string{"sweep", mostFail, "--seeds", "6"}, 1, "expectation NOT met (at least 90% of seeds fail)"},
	})
}

// TestSweep_PrintsEachFailureWithItsReplayAndPinsIt: every failing seed
// comes with a command that replays it, and the pinned file does.
func TestSweep_PrintsEachFailureWithItsReplayAndPinsIt(t *testing.T) {
	corpus := t.TempDir()
	r := detsim(t, "sweep", propertyDir(t), "--seeds", "6", "--workers", "3", "--corpus", corpus)
	if r.code != 1 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var replays []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if cmd, ok := strings.CutPrefix(strings.TrimSpace(line), "replay "); ok {
			replays = append(replays, cmd)
		}
	}
	if strings.Count(r.stdout, "FAIL ") != len(replays) || len(replays) == 0 {
		t.Fatalf("%d failures, %d replay commands:\n%s", strings.Count(r.stdout, "FAIL "), len(replays), r.stdout)
	}
	for _, cmd := range replays {
		args := strings.Fields(cmd)
		if args[0] != "detsim" || args[1] != "--batch" {
			t.Fatalf("replay %q", cmd)
		}
		out := filepath.Join(t.TempDir(), "b")
		rr := detsim(t, append([]string{"--batch", "--out", out}, args[2:]...)...)
		if rr.code != 1 || !strings.Contains(rr.stdout, "Fail         no_loss") {
			t.Errorf("%s: exit %d\n%s", cmd, rr.code, rr.stdout)
		}
	}
}

// detsimEnv is detsim with the environment changed: "NAME=value" sets a
// variable, a bare "NAME" unsets it.
func detsimEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(detsimBinary(t), args...)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(env, func(e string) bool { n, _, _ := strings.Cut(e, "="); return n == name }) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for _, e := range env {
		if strings.Contains(e, "=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	return runResult(t, cmd)
}

// TestSweep_JSONShardsConcatenate: for n = 1 … 4, the per-seed lines of
// shards 1/n … n/n concatenated are the unsharded sweep's, byte for
// byte, whether the shard comes from --shard i/n or, as on a Kubernetes
// Indexed Job, from --shard-from-env with a 0-based index i−1.
func TestSweep_JSONShardsConcatenate(t *testing.T) {
	prop := propertyDir(t)
	seedLines := func(env []string, args ...string) []string {
		t.Helper()
		r := detsimEnv(t, env, append([]string{"sweep", prop, "--seeds", "9", "--start", "4", "--json", "--corpus", ""}, args...)...)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("%v %v: exit %d\n%s", env, args, r.code, r.stderr)
		}
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			var v map[string]any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Fatalf("not JSON: %q", line)
			}
			if v["type"] == "seed" {
				out = append(out, line)
			} else if v["type"] != "summary" {
				t.Fatalf("unknown line %q", line)
			}
		}
		return out
	}
	whole := seedLines(nil)
	if len(whole) != 9 || !strings.Contains(whole[0], `"seed":4`) || !strings.Contains(whole[8], `"seed":12`) {
		t.Fatalf("seed range:\n%s", strings.Join(whole, "\n"))
	}
	if !strings.Contains(strings.Join(whole, "\n"), `"outcome":"fail"`) || !strings.Contains(strings.Join(whole, "\n"), `"outcome":"pass"`) {
		t.Fatalf("want both outcomes among the seeds, so an order mistake shows:\n%s", strings.Join(whole, "\n"))
	}
	for n := 1; n <= 4; n++ {
		var byFlag, byEnv []string
		for i := 1; i <= n; i++ {
			byFlag = append(byFlag, seedLines(nil, "--shard", fmt.Sprintf("%d/%d", i, n))...)
			byEnv = append(byEnv, seedLines([]string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i-1)},
				"--shard-from-env", "JOB_COMPLETION_INDEX", "--shards", fmt.Sprint(n))...)
		}
		if strings.Join(whole, "\n") != strings.Join(byFlag, "\n") {
			t.Errorf("%d shards by --shard:\n%s\nwhole:\n%s", n, strings.Join(byFlag, "\n"), strings.Join(whole, "\n"))
		}
		if strings.Join(whole, "\n") != strings.Join(byEnv, "\n") {
			t.Errorf("%d shards by --shard-from-env:\n%s\nwhole:\n%s", n, strings.Join(byEnv, "\n"), strings.Join(whole, "\n"))
		}
	}
}

// TestSweep_ShardFromEnvIsValidated: a missing or garbled index, a
// missing count, or a second way of naming the shard is exit 2 with a
// message that says which; a good one names its source in the header.
func TestSweep_ShardFromEnvIsValidated(t *testing.T) {
	prop := propertyDir(t, "loss_prob_ppm = [0, 4_000]", "loss_prob_ppm = 0")
	base := []string{"sweep", prop, "--seeds", "4", "--corpus", ""}
	fromEnv := []string{"--shard-from-env", "IDX", "--shards", "2"}
	cases := []struct {
		name string
		env  []string
		args []string
		code int
		msg  string
	}{
		{"unset", []string{"IDX"}, fromEnv, 2, "--shard-from-env IDX: the variable is not set"},
		{"empty", []string{"IDX="}, fromEnv, 2, `shard index "": want an integer from 0 to 1`},
		{"garbled", []string{"IDX=two"}, fromEnv, 2, `shard index "two": want an integer from 0 to 1`},
		{"negative", []string{"IDX=-1"}, fromEnv, 2, `shard index "-1"`},
		{"past the count", []string{"IDX=2"}, fromEnv, 2, "shard index 2: want 0 <= index < 2"},
		{"no count", []string{"IDX=0"}, []string{"--shard-from-env", "IDX"}, 2, "--shard-from-env IDX needs --shards n"},
		{"bad count", []string{"IDX=0"}, []string{"--shard-from-env", "IDX", "--shards", "0"}, 2, `shard count "0": want a positive integer`},
		{"no variable", []string{"IDX=0"}, []string{"--shard-from-env", "", "--shards", "2"}, 2, "name the variable"},
		{"count alone", []string{"IDX"}, []string{"--shards", "2"}, 2, "--shards goes with --shard-from-env"},
		{"both ways", []string{"IDX=0"}, append([]string{"--shard", "1/2"}, fromEnv...), 2, "--shard and --shard-from-env both name the shard"},
		{"ok", []string{"IDX=1"}, fromEnv, 0, "seeds     2 to 3 (2), shard 2/2 (IDX=1) on"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{}, base...), c.args...)
			exitCase{c.name, args, c.code, c.msg}.check(t, detsimEnv(t, c.env, args...))
		})
	}
}

// TestSweep_InterruptKeepsTheFailuresFound sends SIGINT once a failure is
// printed: the sweep stops, prints its summary and keeps the pin.
func TestSweep_InterruptKeepsTheFailuresFound(t *testing.T) {
	corpus := t.TempDir()
	cmd := exec.Command(detsimBinary(t), "sweep", propertyDir(t), "--seeds", "1000000", "--workers", "2", "--corpus", corpus)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var out []string
	signalled := false
	for sc.Scan() {
		out = append(out, sc.Text())
		if strings.HasPrefix(sc.Text(), "FAIL") && !signalled {
			cmd.Process.Signal(syscall.SIGINT)
			signalled = true
		}
	}
	code := exitCode(cmd.Wait())
	text := strings.Join(out, "\n")
	if code != 1 || !strings.Contains(text, "INTERRUPTED") || !strings.Contains(text, "summary") {
		t.Fatalf("exit %d\n%s", code, text)
	}
	pins, _ := filepath.Glob(filepath.Join(corpus, "echo_lossy-*.toml"))
	if len(pins) == 0 || len(pins) != strings.Count(text, "FAIL ") {
		t.Errorf("%d pins for %d printed failures", len(pins), strings.Count(text, "FAIL "))
	}
}

// TestSweep_DefaultCorpusOnlyForPassProperties: an expect = "pass"
// property pins to scenarios/regression under the working directory by
// default; an expect = "fail" one pins nowhere unless asked.
func TestSweep_DefaultCorpusOnlyForPassProperties(t *testing.T) {
	for _, c := range []struct {
		expect string
		pins   bool
	}{{"pass", true}, {"fail", false}} {
		prop := propertyDir(t, `expect = "pass"`, `expect = "`+c.expect+`"`)
		dir := t.TempDir()
		cmd := exec.Command(detsimBinary(t), "sweep", prop, "--seeds", "4")
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		pins, _ := filepath.Glob(filepath.Join(dir, "scenarios", "regression", "echo_lossy-*.toml"))
		if (len(pins) > 0) != c.pins {
			t.Errorf("expect %s: %d pins\n%s", c.expect, len(pins), out)
		}
	}
}
