package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/fstree"
	"github.com/detsim/detsim/internal/realtime"
	"github.com/detsim/detsim/internal/scratch"
	"github.com/detsim/detsim/scenarios"
)

// slowScenario writes an echo scenario that runs for seconds: long
// enough to be signalled, killed or raced while it writes its bundle.
func slowScenario(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("name = \"slow\"\nseed = 1\nduration_ns = 4_000_000_000_000\n")
	b.WriteString("[default_tick]\nperiod_ns = 10_000_000\n[default_link]\nlatency_ns = 1_000_000\nbandwidth_bps = 100_000_000\n")
	for i := range 24 {
		fmt.Fprintf(&b, "[[peers]]\nid = \"p%d\"\nkind = \"echo\"\n", i)
	}
	path := filepath.Join(dir, "slow.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// startBatch starts `detsim --batch --out out scenario` and waits until
// its work directory exists.
func startBatch(t *testing.T, scenario, out string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(detsimBinary(t), "--batch", "--out", out, scenario)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	realtime.WaitFor(t, "the run's work directory", 5*time.Second, func() bool {
		return len(workDirs(t, filepath.Dir(out))) > 0
	})
	return cmd
}

func workDirs(t *testing.T, parent string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(parent, "*"+scratch.TempInfix+"*"))
	return m
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestBatch_OutNeverReplacesWhatDetsimDidNotWrite(t *testing.T) {
	parent := t.TempDir()
	web := filepath.Join(parent, "site")
	for name, data := range map[string]string{"manifest.json": `{"name":"app"}`, "index.html": "<html>", "src/app.js": "main()"} {
		p := filepath.Join(web, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
	}
	bundle := filepath.Join(parent, "b")
	if r := detsim(t, "--batch", "--out", bundle, "reference/echo_parity"); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	os.WriteFile(filepath.Join(bundle, "notes.md"), []byte("mine"), 0o644)
	before := fstree.Of(t, parent)
	for _, c := range []struct{ out, say string }{
		{web, "not a detsim manifest"},
		{bundle, "notes.md"},
		{filepath.Join(bundle, "inner"), "inside the detsim bundle"},
	} {
		r := detsim(t, "--batch", "--out", c.out, "reference/echo_parity")
		if r.code != 2 || !strings.Contains(r.stderr, c.say) || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("--out %s: exit %d, want 2 with one line saying %q\n%s", c.out, r.code, c.say, r.stderr)
		}
	}
	fstree.Same(t, parent, before, "refused runs changed the tree")
	if r := detsim(t, "--batch", "--out", "", "reference/echo_parity"); r.code != 2 || !strings.Contains(r.stderr, "--out is empty") {
		t.Errorf("--out \"\": exit %d\n%s", r.code, r.stderr)
	}
}

func TestBatch_SecondRunOnTheSameOutIsInUse(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	first := startBatch(t, slowScenario(t, parent), out)
	r := detsim(t, "--batch", "--out", out, "reference/echo_parity")
	if r.code != 2 || !strings.Contains(r.stderr, "in use") {
		t.Errorf("second run: exit %d, want 2 saying in use\n%s", r.code, r.stderr)
	}
	first.Process.Signal(syscall.SIGTERM)
	first.Wait()
}

func TestBatch_SignalRemovesItsOwnWorkDirectory(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			parent := t.TempDir()
			out := filepath.Join(parent, "out")
			cmd := startBatch(t, slowScenario(t, parent), out)
			cmd.Process.Signal(sig)
			if code := exitCode(cmd.Wait()); code != 128+int(sig) {
				t.Errorf("exit %d, want %d", code, 128+int(sig))
			}
			if left := fstree.Of(t, parent); len(left) != 2 { // ".", slow.toml
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

func TestBatch_NextRunRemovesWhatAKilledRunLeft(t *testing.T) {
	parent := t.TempDir()
	// killThenRun kills a run writing killedOut, runs another writing
	// nextOut, and wants the killed run's work directory and lock gone.
	killThenRun := func(what, killedOut, nextOut string) {
		t.Helper()
		cmd := startBatch(t, slowScenario(t, parent), killedOut)
		cmd.Process.Kill() // SIGKILL: nothing of detsim runs on the way out
		cmd.Wait()
		if len(workDirs(t, parent)) == 0 {
			t.Fatal("SIGKILL left no work directory; the test proves nothing")
		}
		if r := detsim(t, "--batch", "--out", nextOut, "reference/echo_parity"); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", what, r.code, r.stderr)
		}
		if left := workDirs(t, parent); len(left) != 0 {
			t.Errorf("%s left the killed run's work directory: %v", what, left)
		}
		if _, err := os.Stat(scratch.LockPath(killedOut)); !os.IsNotExist(err) {
			t.Errorf("%s left the killed run's lock file: %v", what, err)
		}
	}
	out := filepath.Join(parent, "out")
	killThenRun("the next run", out, out)
	// A killed run's leftovers go with the next run in the same
	// directory whatever its --out (before, only a run with the same
	// --out name removed them).
	killThenRun("a run with another --out", filepath.Join(parent, "other"), filepath.Join(parent, "third"))
}

func TestBatch_DiskFullIsExit2NamingThePath(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	// A file size limit makes the filesystem refuse the write as a full
	// disk would; Go ignores SIGXFSZ, so the write returns EFBIG.
	cmd := exec.Command("bash", "-c", `ulimit -f 64 && exec "$0" --batch --out "$1" reference/echo_parity`, detsimBinary(t), out)
	msg, err := cmd.CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(msg), parent) {
		t.Errorf("exit %d, want 2 naming %s\n%s", code, parent, msg)
	}
	if left := fstree.Of(t, parent); len(left) != 1 {
		t.Errorf("left behind: %v", left)
	}
}

func TestShrink_NeverOverwritesAFileItDidNotWrite(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "planted.toml")
	src, err := os.ReadFile("../shrink/testdata/planted.toml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(input, src, 0o644)
	precious := filepath.Join(dir, "precious.toml")
	os.WriteFile(precious, []byte("mine"), 0o644)
	link := filepath.Join(dir, "link.toml")
	os.Symlink(precious, link)
	before := fstree.Of(t, dir)
	for _, out := range []string{input, precious, link} {
		r := detsim(t, "shrink", input, "--out", out)
		if r.code != 2 || !strings.Contains(r.stderr, "--force") || strings.Contains(r.stdout, "kept") {
			t.Errorf("--out %s: exit %d, want 2 before any run\n%s%s", out, r.code, r.stdout, r.stderr)
		}
	}
	fstree.Same(t, dir, before, "refused shrinks changed the directory")
	if r := detsim(t, "shrink", input, "--out", ""); r.code != 2 || !strings.Contains(r.stderr, "empty") {
		t.Errorf("--out \"\": exit %d\n%s", r.code, r.stderr)
	}
	r := detsim(t, "shrink", input, "--out", link, "--force", "--budget", "3")
	if r.code != 0 {
		t.Fatalf("--force: exit %d\n%s", r.code, r.stderr)
	}
	if data, _ := os.ReadFile(precious); string(data) != "mine" {
		t.Errorf("--force wrote through the link into its target: %q", data)
	}
}

func TestSweep_NeverReplacesADifferentPin(t *testing.T) {
	corpus := t.TempDir()
	prop := propertyDir(t)
	if r := detsim(t, "sweep", prop, "--seeds", "40", "--corpus", corpus); r.code != 1 {
		t.Fatalf("first sweep: exit %d\n%s", r.code, r.stderr)
	}
	pins, _ := filepath.Glob(filepath.Join(corpus, "echo_lossy-*[0-9].toml"))
	if len(pins) == 0 {
		t.Fatal("nothing pinned")
	}
	// The same sweep again finds the same pins: nothing to replace.
	if r := detsim(t, "sweep", prop, "--seeds", "40", "--corpus", corpus); strings.Contains(r.stdout, "NOT PINNED") {
		t.Errorf("an identical pin was refused:\n%s", r.stdout)
	}
	data, _ := os.ReadFile(pins[0])
	forged := strings.Replace(string(data), "# expected: ", "# expected: x", 1)
	os.WriteFile(pins[0], []byte(forged), 0o644)
	r := detsim(t, "sweep", prop, "--seeds", "40", "--corpus", corpus)
	if !strings.Contains(r.stdout, "NOT PINNED") || !strings.Contains(r.stdout, "different pin") {
		t.Errorf("a different pin was not reported:\n%s", r.stdout)
	}
	if now, _ := os.ReadFile(pins[0]); string(now) != forged {
		t.Error("the different pin was replaced")
	}
}

// A sweep killed between a pin's two writes leaves the verdicts file, no
// .toml, and a temporary; the next sweep finishes that pin and removes
// the temporaries, touching nothing else. A verdicts file detsim did not
// write is never adopted or removed: the seed is NOT PINNED, and the
// sweep says so with exit 2. Before (issue 28), the next sweep printed
// NOT PINNED … already exists and exited 0 — an expect = "fail" sweep's
// verdict held — and the seed was never pinned.
func TestSweep_FinishesAPinAKilledSweepLeft(t *testing.T) {
	corpus := t.TempDir()
	prop := propertyDir(t, `expect = "pass"`, `expect = "fail"`)
	sweep := func() result { return detsim(t, "sweep", prop, "--seeds", "6", "--corpus", corpus) }
	if r := sweep(); r.code != 0 {
		t.Fatalf("first sweep: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	pins, _ := filepath.Glob(filepath.Join(corpus, "echo_lossy-*[0-9].toml"))
	if len(pins) == 0 {
		t.Fatal("nothing pinned")
	}
	pin := pins[0]
	verdicts := strings.TrimSuffix(pin, ".toml") + ".verdicts.json"
	want, err := os.ReadFile(pin)
	must(t, err)

	// What SIGKILL leaves: the verdicts file in place, the scenario not,
	// and the temporaries of either write; and a file of the user's.
	must(t, os.Remove(pin))
	temps := []string{
		filepath.Join(corpus, "."+filepath.Base(verdicts)+scratch.TempInfix+"123"),
		filepath.Join(corpus, "."+filepath.Base(pin)+scratch.TempInfix+"456"),
	}
	for _, tmp := range temps {
		must(t, os.WriteFile(tmp, []byte("half"), 0o600))
	}
	notes := filepath.Join(corpus, "notes-"+filepath.Base(pin))
	must(t, os.WriteFile(notes, []byte("mine"), 0o644))
	r := sweep()
	if r.code != 0 || strings.Contains(r.stdout, "NOT PINNED") {
		t.Errorf("after a killed pin: exit %d, want 0 with the pin finished\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got, err := os.ReadFile(pin); err != nil || string(got) != string(want) {
		t.Errorf("the half pin was not finished as the first sweep wrote it: %v", err)
	}
	for _, tmp := range temps {
		if _, err := os.Lstat(tmp); !os.IsNotExist(err) {
			t.Errorf("the killed write's temporary %s is still there: %v", filepath.Base(tmp), err)
		}
	}
	if got, _ := os.ReadFile(notes); string(got) != "mine" {
		t.Errorf("the user's file became %q", got)
	}

	// A verdicts file with no scenario beside it that this pin would not
	// have written is not detsim's: kept, and the seed is NOT PINNED.
	os.Remove(pin) // finished above, unless that part failed
	must(t, os.WriteFile(verdicts, []byte("mine\n"), 0o644))
	r = sweep()
	if r.code != 2 || !strings.Contains(r.stdout, "NOT PINNED") || !strings.Contains(r.stderr, "NOT PINNED") {
		t.Errorf("a foreign verdicts file: exit %d, want 2 saying NOT PINNED\n%s%s", r.code, r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(verdicts); string(got) != "mine\n" {
		t.Errorf("the foreign verdicts file became %q", got)
	}
	if _, err := os.Lstat(pin); !os.IsNotExist(err) {
		t.Errorf("a pin was written beside a verdicts file detsim did not write: %v", err)
	}
}

func TestSweep_SeedRangeIsCheckedBeforeTheHeader(t *testing.T) {
	r := detsim(t, "sweep", propertyDir(t), "--start", "9223372036854775807", "--seeds", "2")
	if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "seeds go up to") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestLive_ShortRunWritesAVerifiableLiveBundle(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b")
	r := detsim(t, "live", "smoke/three_mesh", "--max-duration", "2s", "--out", out)
	if r.code != 0 || !strings.Contains(r.stdout, "INTERRUPTED") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if v := detsim(t, "verify", out); v.code != 0 {
		t.Errorf("verify on the live bundle: exit %d\n%s", v.code, v.stdout)
	}
	notBundle := out + "-file"
	os.WriteFile(notBundle, []byte("x"), 0o644)
	for _, c := range []struct {
		args []string
		say  string
	}{
		{[]string{"live", "reference/echo_parity", "--max-duration", "1s", "--out", out + "2"}, "only swim peers"},
		{[]string{"live", "smoke/three_mesh", "--swimd", "/nope"}, "--swimd goes with --procs"},
		// A key is never taken on the command line (ps shows it to any
		// local user), and a key file that is not a file is refused.
		{[]string{"live", "smoke/three_mesh", "--key", "00112233445566778899aabbccddeeff"}, "never taken on the command line"},
		{[]string{"live", "smoke/three_mesh", "--key-file", "/dev/zero"}, "character device"},
		{[]string{"live", "smoke/three_mesh", "--max-duration", "1s", "--out", notBundle}, "not a detsim bundle"},
	} {
		r := detsim(t, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.say) {
			t.Errorf("%v: exit %d, want 2 saying %q\n%s", c.args, r.code, c.say, r.stderr)
		}
	}
}

func TestCalibrateAndSchemadiff_ExitCodes(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "b")
	if r := detsim(t, "--batch", "--out", b, "smoke/three_mesh"); r.code != 0 {
		t.Fatalf("batch: exit %d\n%s", r.code, r.stderr)
	}
	badTol := filepath.Join(dir, "tol.toml")
	os.WriteFile(badTol, []byte("[msg_size]\nrule = \"nope\"\n"), 0o644)
	checkExits(t, []exitCase{
		{"schemadiff of a bundle with itself", []string{"schemadiff", b, b}, 0, "no schema differences"},
		{"schemadiff of no bundle", []string{"schemadiff", b, filepath.Join(dir, "nope")}, 2, "nope"},
		{"schemadiff --prod unknown", []string{"schemadiff", b, b, "--prod", "c"}, 2, "--prod"},
		{"calibrate against a sim bundle unallowed", []string{"calibrate", "smoke/three_mesh", b, "--seeds", "2"}, 2, "--allow-sim-prod"},
		{"calibrate against a sim bundle allowed", []string{"calibrate", "smoke/three_mesh", b, "--seeds", "2", "--allow-sim-prod"}, 0, "calibrate: pass"},
		{"calibrate a scenario of other peers", []string{"calibrate", "reference/echo_parity", b, "--seeds", "2", "--allow-sim-prod"}, 2, "peers"},
		{"sensitivity with a bad table", []string{"calibrate", "--sensitivity", "--table", badTol}, 2, "tol.toml"},
		{"sensitivity with a scenario", []string{"calibrate", "--sensitivity", "smoke/three_mesh"}, 2, "takes no SCENARIO"},
		{"calibrate with bad tolerances", []string{"calibrate", "smoke/three_mesh", b, "--tolerances", badTol}, 2, "tol.toml"},
		{"calibrate with no bundle", []string{"calibrate", "smoke/three_mesh"}, 2, "PROD_BUNDLE"},
	})
}

func TestRender_WritesAPageBesideTheBundleAndNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "b")
	if r := detsim(t, "--batch", "--out", b, "smoke/three_mesh"); r.code != 0 {
		t.Fatalf("batch: exit %d\n%s", r.code, r.stderr)
	}
	r := detsim(t, "render", b)
	page, err := os.ReadFile(b + ".html")
	if r.code != 0 || err != nil || !strings.Contains(string(page), "<html") {
		t.Fatalf("render: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if v := detsim(t, "verify", b); v.code != 0 {
		t.Errorf("the page was written into the bundle: verify exit %d\n%s", v.code, v.stdout)
	}
	if r := detsim(t, "render", b); r.code != 2 || !strings.Contains(r.stderr, "--force") {
		t.Errorf("second render: exit %d, want 2\n%s", r.code, r.stderr)
	}
	if r := detsim(t, "render", "--compare", b, b, "-o", filepath.Join(dir, "c.html")); r.code != 0 {
		t.Errorf("compare: exit %d\n%s", r.code, r.stderr)
	}
	if r := detsim(t, "render", filepath.Join(dir, "nope")); r.code != 2 {
		t.Errorf("missing bundle: exit %d", r.code)
	}
}

func TestProviderServe_HelpAndLoopbackOnly(t *testing.T) {
	if r := detsim(t, "provider-serve", "-h"); r.code != 0 || !strings.Contains(r.stdout, "usage: detsim provider-serve") {
		t.Errorf("-h: exit %d\n%s", r.code, r.stdout)
	}
	if r := detsim(t, "provider-serve", "agent/overloaded", "--addr", "10.0.0.1:80"); r.code != 2 || !strings.Contains(r.stderr, "loopback") {
		t.Errorf("non-loopback: exit %d\n%s", r.code, r.stderr)
	}
	if r := detsim(t, "provider-serve", "nope/nothing"); r.code != 2 {
		t.Errorf("unknown script: exit %d\n%s", r.code, r.stderr)
	}
}

// A run given no --out writes bundles/<name>-<seed>; a shrunk scenario
// keeps its original's name, and replaced the original's bundle (issue
// 22). Now a default --out holding a bundle of another scenario file is
// refused, exit 2, the bundle untouched; the same scenario replaces its
// own, and --out naming the directory replaces it on purpose.
func TestBatch_DefaultOutNeverReplacesAnotherScenariosBundle(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if r := runIn("--batch", "reference/echo_parity"); r.code != 0 {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	out := filepath.Join("bundles", "echo_parity-7")
	again := runIn("--batch", "reference/echo_parity")
	if again.code != 0 {
		t.Fatalf("the same scenario again: exit %d\n%s", again.code, again.stderr)
	}
	// The "shrunk" scenario: the same name and seed, another file.
	sc, err := scenarios.LoadLibrary("reference/echo_parity", builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	text := sc.TOML()
	other := filepath.Join(dir, "shrunk.toml")
	if err := os.WriteFile(other, append([]byte("# shrunk\n"), text...), 0o644); err != nil {
		t.Fatal(err)
	}
	before := fstree.Of(t, dir)
	r := runIn("--batch", other)
	if r.code != exitUsage || !strings.Contains(r.stderr, out+" holds a run of another scenario") || !strings.Contains(r.stderr, "--out "+out) {
		t.Fatalf("shrunk scenario, default --out: exit %d, want 2 refusing %s\n%s", r.code, out, r.stderr)
	}
	fstree.Same(t, dir, before, "the refused run changed the tree")
	if r := runIn("--batch", "--out", out, other); r.code != 0 {
		t.Errorf("--out %s given: exit %d\n%s", out, r.code, r.stderr)
	}
}
