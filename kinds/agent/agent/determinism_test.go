package agent_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/bundle"

	"github.com/detsim/detsim/internal/golden"
)

const episodeFile = "testdata/episode.toml"

// TestEpisode_ByteIdenticalInProcess is seed 001's steps 1-2: the same
// script run twice in one process gives byte-identical episodes (every
// event, every message on the wire in full, and the serialised session
// store), equal to the committed expected serialisation.
func TestEpisode_ByteIdenticalInProcess(t *testing.T) {
	a := run(t, load(t, episodeFile)).bytes()
	b := run(t, load(t, episodeFile)).bytes()
	if !bytes.Equal(a, b) {
		t.Fatal("two runs in one process differ")
	}
	golden.Check(t, "testdata/episode.golden", a)
}

// TestEpisode_ByteIdenticalInFreshProcess is seed 001's step 3: a
// separate process writes the same bytes, so nothing is seeded from
// process state. Two processes: this test binary run afresh
// (TestEpisode_FreshProcessHelper) writes the whole episode, wire
// included, which must equal the golden byte for byte; and a freshly
// built detsim --batch writes the events and the agent's snapshot, which
// must equal those parts of it.
func TestEpisode_ByteIdenticalInFreshProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the detsim binary")
	}
	want, err := os.ReadFile("testdata/episode.golden")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	full := filepath.Join(dir, "episode")
	cmd := exec.Command(os.Args[0], "-test.run=^TestEpisode_FreshProcessHelper$")
	cmd.Env = append(os.Environ(), helperEnv+"="+full)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fresh test process: %v\n%s", err, out)
	}
	got, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("the fresh process's episode (wire included) differs from testdata/episode.golden")
	}

	bin := filepath.Join(dir, "detsim")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../cmd/detsim").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "bundle")
	if b, err := exec.Command(bin, "--batch", "--out", out, episodeFile).CombinedOutput(); err != nil {
		t.Fatalf("detsim --batch: %v\n%s", err, b)
	}
	events, err := os.ReadFile(filepath.Join(out, "events.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := bundle.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	var snap []byte
	if err := bundle.EachSnapshot(out, m, func(r bundle.SnapshotRecord) error {
		if r.Path == "snapshots/agent/0.json" {
			snap = bytes.Clone(r.Data)
		}
		return nil
	}); err != nil || snap == nil {
		t.Fatalf("the agent's snapshot 0: %v (found %v)", err, snap != nil)
	}
	wire := bytes.Index(want, []byte("-- wire:"))
	snapAt := bytes.Index(want, []byte("-- snapshot of agent --\n"))
	if !bytes.Equal(events, want[:wire]) || !bytes.Equal(append(snap, '\n'), want[snapAt+len("-- snapshot of agent --\n"):]) {
		t.Fatal("detsim --batch's events.ndjson or agent snapshot differs from testdata/episode.golden")
	}
}

// helperEnv names the file TestEpisode_FreshProcessHelper writes to.
const helperEnv = "DETSIM_EPISODE_HELPER_OUT"

// TestEpisode_FreshProcessHelper is not a test: run as a separate
// process by TestEpisode_ByteIdenticalInFreshProcess, it writes the
// episode's full bytes to the file named by helperEnv.
func TestEpisode_FreshProcessHelper(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("run by TestEpisode_ByteIdenticalInFreshProcess in a fresh process")
	}
	if err := os.WriteFile(path, run(t, load(t, episodeFile)).bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEpisode_DeclaredLatencyIsVirtual: the script declares over 30 s
// of latency and the episode's records span it on the virtual clock; the
// wall time it takes is BenchmarkEpisode_30sDeclaredLatency's business,
// never a timed assertion. Each fault entry gives its outcome: the 503 a
// failed attempt, the timeout entry timed_out, the hang cut off by the
// idle deadline.
func TestEpisode_DeclaredLatencyIsVirtual(t *testing.T) {
	ep := run(t, load(t, episodeFile))
	var end int64
	for _, l := range ep.of("episode_end") {
		_ = l
		end = ep.end
	}
	if end == 0 || field(ep.of("episode_end")[0], "outcome") != "ok" {
		t.Fatalf("episode did not end ok: %q", ep.of("episode_end"))
	}
	got := outcomes(ep)
	want := map[string]string{
		"t2.a1": "t2.a1 failed api_error",
		"t3.a1": "t3.a1 timed_out first_byte",
		"t4.a1": "t4.a1 timed_out idle",
	}
	for id, w := range want {
		found := false
		for _, o := range got {
			if len(o) > len(id) && o[:len(id)+1] == id+" " {
				found = o == w
			}
		}
		if !found {
			t.Errorf("%s: outcomes %q, want %q", id, got, w)
		}
	}
	var start int64 = -1
	for _, l := range ep.events {
		if bytes.Contains([]byte(l), []byte(`"type":"episode_start"`)) {
			start = 0
		}
	}
	if start < 0 {
		t.Fatal("no episode_start")
	}
}

// BenchmarkEpisode_30sDeclaredLatency measures the wall time of the
// determinism episode, whose script declares over 30 s of latency:
// microseconds to milliseconds, because every delay is a virtual timer.
func BenchmarkEpisode_30sDeclaredLatency(b *testing.B) {
	sc := load(b, episodeFile)
	for b.Loop() {
		run(b, sc)
	}
}
