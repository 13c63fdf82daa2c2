package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// scratchDir holds the bundles the tests share; TestMain removes it.
var scratchDir string

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "detsim-render-test-")
	if err != nil {
		panic(err)
	}
	scratchDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

var (
	runOnce sync.Map // scenario name → *onceBundle
)

type onceBundle struct {
	once sync.Once
	dir  string
	err  error
}

// libraryBundle runs the embedded scenario name once per test binary and
// returns its bundle's directory.
func libraryBundle(t testing.TB, name string) string {
	t.Helper()
	v, _ := runOnce.LoadOrStore(name, &onceBundle{})
	ob := v.(*onceBundle)
	ob.once.Do(func() {
		reg := builtin.Registry()
		sc, err := scenarios.Resolve(name, reg)
		if err != nil {
			ob.err = err
			return
		}
		ob.dir = filepath.Join(scratchDir, strings.ReplaceAll(name, "/", "_"))
		_, ob.err = batch.Run(sc, reg, batch.Config{Out: ob.dir, Version: "render-test"})
	})
	if ob.err != nil {
		t.Fatalf("running %s: %v", name, ob.err)
	}
	return ob.dir
}

// loadLines writes lines as a bundle with no verdicts, in a directory of
// its own, and loads it as render does.
func loadLines(t testing.TB, lines []string) *run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "b")
	writeBundle(t, dir, lines, "[]\n")
	r, err := load(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// writeBundle writes a bundle that bundle.Verify accepts, holding lines
// as events.ndjson (each without its newline) and verdicts as
// verdicts.json, for a scenario of peers a and b.
func writeBundle(t testing.TB, out string, lines []string, verdicts string) {
	t.Helper()
	w, err := bundle.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	events := sha256.New()
	for _, l := range lines {
		b := []byte(l + "\n")
		events.Write(b)
		if err := w.WriteEventLine(b); err != nil {
			t.Fatal(err)
		}
	}
	snaps := sha256.Sum256(nil)
	h := sha256.New()
	h.Write(events.Sum(nil))
	h.Write(snaps[:])
	m := bundle.Manifest{
		SimulatorVersion: "render-test",
		ScenarioPath:     "test.toml",
		ScenarioSHA256:   strings.Repeat("0", 64),
		Seed:             7,
		DurationNs:       10_000_000_000,
		HostArch:         "amd64",
		Digest:           hex.EncodeToString(h.Sum(nil)),
	}
	sc := "name = \"synthetic\"\nseed = 7\nduration_ns = 10000000000\n\n[[peers]]\nid = \"a\"\nkind = \"swim\"\n\n[[peers]]\nid = \"b\"\nkind = \"swim\"\n"
	if err := w.Finish(m, []byte(sc), []byte(verdicts)); err != nil {
		t.Fatal(err)
	}
}

// renderFile renders dir to a file in t's temp dir and returns its path.
func renderFile(t testing.TB, dir string, opts Options) (string, *Stats) {
	t.Helper()
	var buf bytes.Buffer
	st, err := Write(&buf, dir, opts)
	if err != nil {
		t.Fatalf("Write(%s): %v", dir, err)
	}
	path := filepath.Join(t.TempDir(), "page.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}
	return path, st
}

// pageData extracts and decodes the page's JSON blob.
func pageData(t testing.TB, page []byte) map[string]any {
	t.Helper()
	const open = `<script type="application/json" id="detsim-data">`
	i := bytes.Index(page, []byte(open))
	if i < 0 {
		t.Fatal("page has no data blob")
	}
	rest := page[i+len(open):]
	j := bytes.Index(rest, []byte("</script>"))
	if j < 0 {
		t.Fatal("data blob is not closed")
	}
	var v map[string]any
	if err := json.Unmarshal(rest[:j], &v); err != nil {
		t.Fatalf("data blob is not JSON: %v", err)
	}
	return v
}

// countTypes counts dir's events.ndjson records by event type.
func countTypes(t testing.TB, dir string) map[string]int {
	t.Helper()
	n := map[string]int{}
	if err := bundle.ReadEvents(dir, func(_ int, rec bundle.EventRecord) error {
		n[rec.Type]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// eventLine is record n (1-based) of dir's events.ndjson, as every
// reader numbers them (a folded line expanded: docs/bundle.md, "Folded
// lines").
func eventLine(t testing.TB, dir string, n int) string {
	t.Helper()
	var line string
	if err := bundle.EachLine(dir, func(i int, b []byte) error {
		if i == n {
			line = string(b)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return line
}
