package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/internal/fstree"
	"github.com/detsim/detsim/internal/realtime"
)

// detsimWithin is detsim with a deadline: an input that blocks a read
// (a FIFO) must fail the test, not hang it.
func detsimWithin(t *testing.T, limit time.Duration, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), realtime.Scaled(limit))
	defer cancel()
	r := runResult(t, exec.CommandContext(ctx, detsimBinary(t), args...))
	if ctx.Err() != nil {
		t.Fatalf("detsim %v: still running after %v: it blocked on its input", args, realtime.Scaled(limit))
	}
	return r
}

// Every bundle reader refuses, at once, an events.ndjson that is not a
// regular file or that links out of the bundle: before, calibrate hung
// for ever on a FIFO and read /etc/passwd and /dev/zero through links.
// schemadiff calls a malformed line invalid input (2), not "the schemas
// differ" (1). A FIFO given as the bundle itself, or as its manifest, is
// refused as invalid input (2) naming it a named pipe: before, verify,
// schemadiff, why and calibrate hung for ever opening the FIFO as the
// bundle's directory (issue 28), and --batch called a FIFO manifest
// missing.
func TestBundleReaders_RefuseWhatIsNotAFile(t *testing.T) {
	dir, good := smokeBundle(t)
	fifo := filepath.Join(dir, "fifo-bundle")
	must(t, syscall.Mkfifo(fifo, 0o600))
	fifoManifest := filepath.Join(dir, "fifo-manifest")
	fstree.Copy(t, good, fifoManifest)
	must(t, os.Remove(filepath.Join(fifoManifest, bundle.ManifestFile)))
	must(t, syscall.Mkfifo(filepath.Join(fifoManifest, bundle.ManifestFile), 0o600))
	for _, args := range [][]string{
		{"verify", fifo},
		{"schemadiff", fifo, good},
		{"schemadiff", good, fifo},
		{"why", fifo, "--line", "3"},
		{"calibrate", "smoke/three_mesh", fifo, "--seeds", "1", "--allow-sim-prod"},
		{"render", fifo, "-o", filepath.Join(dir, "fifo.html")},
		{"--batch", "--out", filepath.Join(dir, "fifo.out"), fifo},
		{"verify", fifoManifest},
		{"schemadiff", fifoManifest, good},
		{"calibrate", "smoke/three_mesh", fifoManifest, "--seeds", "1", "--allow-sim-prod"},
		{"render", fifoManifest, "-o", filepath.Join(dir, "fifo-manifest.html")},
		{"--batch", "--out", filepath.Join(dir, "fifo-manifest.out"), fifoManifest},
	} {
		r := detsimWithin(t, 60*time.Second, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "named pipe") {
			t.Errorf("detsim %v: exit %d, want 2 naming the named pipe\n%s%s", args, r.code, r.stdout, r.stderr)
		}
	}
	hostile := map[string]func(events string){
		"fifo":   func(p string) { must(t, syscall.Mkfifo(p, 0o600)) },
		"passwd": func(p string) { must(t, os.Symlink("/etc/passwd", p)) },
		"zero":   func(p string) { must(t, os.Symlink("/dev/zero", p)) },
		"outside": func(p string) {
			out := filepath.Join(dir, "outside.ndjson")
			data, _ := os.ReadFile(filepath.Join(good, bundle.EventsFile))
			must(t, os.WriteFile(out, data, 0o644))
			must(t, os.Symlink(out, p))
		},
		"malformed": func(p string) { must(t, os.WriteFile(p, []byte("{not json\n"), 0o644)) },
	}
	for name, plant := range hostile {
		b := filepath.Join(dir, name)
		fstree.Copy(t, good, b)
		events := filepath.Join(b, bundle.EventsFile)
		must(t, os.Remove(events))
		plant(events)
		for _, args := range [][]string{
			{"schemadiff", good, b},
			{"calibrate", "smoke/three_mesh", b, "--seeds", "1", "--allow-sim-prod"},
			{"render", b, "-o", filepath.Join(dir, name+".html")},
			{"verify", b},
		} {
			r := detsimWithin(t, 60*time.Second, args...)
			switch args[0] {
			case "schemadiff", "calibrate":
				if r.code != 2 {
					t.Errorf("%s: %s: exit %d, want 2\n%s%s", name, args[0], r.code, r.stdout, r.stderr)
				}
			default: // verify and render: a mismatch (1) or unreadable (2)
				if r.code != 1 && r.code != 2 {
					t.Errorf("%s: %s: exit %d, want 1 or 2\n%s%s", name, args[0], r.code, r.stdout, r.stderr)
				}
			}
		}
	}
}

// A bundle given as the scenario (`detsim --batch BUNDLE`) is read
// through the bundle's root like every other bundle file: a scenario.toml
// that links out of the bundle is refused, whether it leads to a valid
// scenario (before, that scenario ran, exit 0) or to /etc/passwd (before,
// read and parsed), and so is an extends in it.
func TestBundleAsScenario_RefusesALinkOutOfTheBundle(t *testing.T) {
	dir, good := smokeBundle(t)
	outside := filepath.Join(dir, "outside.toml")
	data, err := os.ReadFile(filepath.Join(good, bundle.ScenarioFile))
	must(t, err)
	must(t, os.WriteFile(outside, data, 0o644))
	for name, target := range map[string]string{"outside": outside, "passwd": "/etc/passwd"} {
		b := filepath.Join(dir, name)
		fstree.Copy(t, good, b)
		sc := filepath.Join(b, bundle.ScenarioFile)
		must(t, os.Remove(sc))
		must(t, os.Symlink(target, sc))
		r := detsim(t, "--batch", "--out", filepath.Join(dir, name+".out"), b)
		if r.code != 2 || !strings.Contains(r.stderr, "escapes") {
			t.Errorf("%s: exit %d, want 2 refusing the link\n%s%s", name, r.code, r.stdout, r.stderr)
		}
	}
	// Nor through an extends inside it: a bundle's scenario is the merged
	// one and extends nothing (before, it read the outside file or
	// /etc/passwd).
	for name, target := range map[string]string{"extends-outside": outside, "extends-passwd": "/etc/passwd"} {
		b := filepath.Join(dir, name)
		fstree.Copy(t, good, b)
		must(t, os.WriteFile(filepath.Join(b, bundle.ScenarioFile), []byte("[base]\nextends = \""+target+"\"\n"), 0o644))
		r := detsim(t, "--batch", "--out", filepath.Join(dir, name+".out"), b)
		if r.code != 2 || !strings.Contains(r.stderr, "extends") || strings.Contains(r.stderr, "TOML syntax") {
			t.Errorf("%s: exit %d, want 2 refusing the extends\n%s%s", name, r.code, r.stdout, r.stderr)
		}
	}
}

// smokeBundle writes smoke/three_mesh's bundle in a new directory, for
// damaged copies beside it.
func smokeBundle(t *testing.T) (dir, good string) {
	t.Helper()
	dir = t.TempDir()
	good = filepath.Join(dir, "good")
	if r := detsim(t, "--batch", "--out", good, "smoke/three_mesh"); r.code != 0 {
		t.Fatalf("batch: exit %d\n%s", r.code, r.stderr)
	}
	return dir, good
}

// withLines copies the bundle good to dst with lines appended to its
// events.ndjson, and returns dst.
func withLines(t *testing.T, good, dst string, lines ...string) string {
	t.Helper()
	fstree.Copy(t, good, dst)
	f, err := os.OpenFile(filepath.Join(dst, bundle.EventsFile), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	defer f.Close()
	for _, l := range lines {
		_, err := fmt.Fprintln(f, l)
		must(t, err)
	}
	return dst
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Strings from a bundle or a scenario reach the terminal escaped: an
// event type carrying an OSC title sequence and BEL, a file name with a
// screen-clearing CSI, an assertion name with a right-to-left override.
// Before, verify, schemadiff and calibrate printed them raw.
func TestOutput_EscapesBundleAndScenarioStrings(t *testing.T) {
	dir, good := smokeBundle(t)
	evil := withLines(t, good, filepath.Join(dir, "evil"),
		`{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"x\u001b]0;pwned\u0007\u202e"}}`)
	// A file name with a screen-clearing CSI, listed by the manifest.
	mpath := filepath.Join(evil, bundle.ManifestFile)
	data, err := os.ReadFile(mpath)
	must(t, err)
	var m map[string]any
	must(t, json.Unmarshal(data, &m))
	m["files"].(map[string]any)["notes\x1b[2J\u202e.txt"] = strings.Repeat("0", 64)
	data, err = json.Marshal(m)
	must(t, err)
	must(t, os.WriteFile(mpath, data, 0o644))
	scen := filepath.Join(dir, "bidi.toml")
	must(t, os.WriteFile(scen, []byte(`name = "bidi"
seed = 1
duration_ns = 1_000_000_000
[default_tick]
period_ns = 100_000_000
[default_link]
latency_ns = 1_000_000
bandwidth_bps = 100_000_000
[[peers]]
id = "a"
kind = "echo"
[[peers]]
id = "b"
kind = "echo"
[[assertions]]
name = "ok`+"\u202e"+`liaf"
kind = "event_count"
event_type = "ping_sent"
max = 1
`), 0o644))
	for _, args := range [][]string{
		{"verify", evil},
		{"schemadiff", good, evil},
		{"--batch", "--out", filepath.Join(dir, "bidi-out"), scen},
	} {
		r := detsimWithin(t, 60*time.Second, args...)
		all := r.stdout + r.stderr
		for _, raw := range []string{"\x1b", "\x07", "\u202e"} {
			if strings.Contains(all, raw) {
				t.Errorf("%v printed %q raw:\n%q", args[:1], raw, all)
			}
		}
		if !strings.Contains(all, `\x1b`) && !strings.Contains(all, `\u202e`) {
			t.Errorf("%v: the hostile string is not in the output at all, escaped or not:\n%s", args[:1], all)
		}
	}
}

// calibrate refuses a bundle with more host ids than the scenario
// declares, naming a bounded few, without first holding all of them
// (two million took 800 MB and printed a 19 MB error line).
func TestCalibrate_CapsHostsTheScenarioDoesNotDeclare(t *testing.T) {
	dir, good := smokeBundle(t)
	var lines []string
	for i := range 20000 {
		lines = append(lines, fmt.Sprintf(`{"virtual_time_ns":1,"host_id":"h%d","kind_tag":"swim","event":{"type":"t"}}`, i))
	}
	many := withLines(t, good, filepath.Join(dir, "many"), lines...)
	r := detsimWithin(t, 120*time.Second, "calibrate", "smoke/three_mesh", many, "--seeds", "1", "--allow-sim-prod")
	if r.code != 2 || !strings.Contains(r.stderr, "host ids the scenario does not declare") || len(r.stderr) > 2000 {
		t.Errorf("exit %d, %d bytes of stderr, want 2 and a short line:\n%.2000s", r.code, len(r.stderr), r.stderr)
	}
}
