package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionFrom_FallbackOrder(t *testing.T) {
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}}
	dirty := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}}
	tagged := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}
	cases := []struct {
		name    string
		ldflags string
		info    *debug.BuildInfo
		ok      bool
		want    string
	}{
		{"ldflags first", "v9.9.9", stamped, true, "v9.9.9"},
		{"ldflags without build info", "v9.9.9", nil, false, "v9.9.9"},
		{"vcs revision", "", stamped, true, "abc123"},
		{"dirty tree", "", dirty, true, "abc123-dirty"},
		{"module version", "", tagged, true, "v1.2.3"},
		{"empty build info", "", &debug.BuildInfo{}, true, "unknown"},
		{"no build info", "", nil, false, "unknown"},
	}
	for _, c := range cases {
		if got := versionFrom(c.ldflags, c.info, c.ok); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// detsim --version prints what bundles record (issue 22: there was no
// way to ask), on stdout, exit 0; with an argument it is a usage error.
func TestVersionFlag(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		r := runIn(arg)
		if r.code != exitOK || !strings.HasPrefix(r.stdout, "detsim "+version()+" (go") || r.stderr != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", arg, r.code, r.stdout, r.stderr)
		}
	}
	if r := runIn("--version", "x"); r.code != exitUsage {
		t.Errorf("--version x: exit %d, want %d", r.code, exitUsage)
	}
}

// TestManifest_SimulatorVersionWithoutVCS builds detsim the ways a
// release or a container build does — no VCS stamping, with and without
// an ldflags version — and checks what a --batch run's manifest records.
// Two builds of the whole command: skipped under -short.
func TestManifest_SimulatorVersionWithoutVCS(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds detsim twice more")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"buildvcs=false", []string{"-buildvcs=false"}, "(devel)"},
		{"ldflags", []string{"-buildvcs=false", "-ldflags", "-X main.simulatorVersion=v0.0.0-test+abc"}, "v0.0.0-test+abc"},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := filepath.Join(dir, "detsim-"+c.name)
			out, err := exec.Command("go", append(append([]string{"build", "-o", bin}, c.flags...), "../cmd/detsim")...).CombinedOutput()
			if err != nil {
				t.Fatalf("go build %v: %v\n%s", c.flags, err, out)
			}
			bundle := filepath.Join(dir, "bundle-"+c.name)
			if out, err := exec.Command(bin, "--batch", "--out", bundle, "reference/echo_parity").CombinedOutput(); err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			raw, err := os.ReadFile(filepath.Join(bundle, "manifest.json"))
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				Version string `json:"simulator_version"`
			}
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			if m.Version != c.want {
				t.Errorf("simulator_version %q, want %q", m.Version, c.want)
			}
		})
	}
}
