package sweep

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
)

// echoScenario is a small echo scenario; a `lossy` one drops sends.
func echoScenario(header string, lossy bool) string {
	loss := 0
	if lossy {
		loss = 200_000
	}
	return header + `
name = "e"
seed = 3
duration_ns = 1_000_000_000
[default_tick]
period_ns = 100_000_000
[default_link]
bandwidth_bps = 1_000_000
loss_prob_ppm = ` + strconv.Itoa(loss) + `
[[peers]]
id = "a"
kind = "echo"
[[peers]]
id = "b"
kind = "echo"
[[assertions]]
name = "no_loss"
kind = "event_count"
event_type = "drop_on_send"
max = 0
`
}

func TestCheck_JudgesEachFileAgainstItsExpectation_8_3(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a/pass_ok.toml":       echoScenario("# expect: pass-now", false),
		"a/pass_bad.toml":      echoScenario("# expect: pass-now", true),
		"b/fail_ok.toml":       echoScenario("# expect: fail-until-fix", true),
		"b/fail_bad.toml":      echoScenario("# expect: fail-until-fix", false),
		"c/study.toml":         echoScenario("# expect: sensitivity-study", true),
		"c/no_header.toml":     echoScenario("", false),
		"c/not_scenario.jsonl": "ignored",
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(src), 0o644)
	}
	reg := builtin.Registry()
	items, err := DirItems(dir, reg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	counts, interrupted := Check(context.Background(), items, reg, 3, func(c Checked) {
		got = append(got, filepath.Base(c.Name)+" "+string(c.Status))
	})
	want := []string{
		"pass_bad.toml MISMATCH", "pass_ok.toml ok", "fail_bad.toml MISMATCH", "fail_ok.toml ok",
		"no_header.toml MISMATCH", "study.toml report",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || interrupted {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if counts[AsExpected] != 2 || counts[Mismatch] != 3 || counts[Reported] != 1 {
		t.Errorf("counts %v", counts)
	}
}

func TestCheck_ComparesAPinnedDigest(t *testing.T) {
	corpus := t.TempDir()
	reg := builtin.Registry()
	if _, err := Run(context.Background(), lossy(t), reg, Config{Start: 1, Count: 1, Corpus: corpus}); err != nil {
		t.Fatal(err)
	}
	check := func() Checked {
		items, err := DirItems(corpus, reg)
		if err != nil || len(items) != 1 || items[0].Pin == nil {
			t.Fatalf("items %+v, %v", items, err)
		}
		var c Checked
		Check(context.Background(), items, reg, 1, func(x Checked) { c = x })
		return c
	}
	if c := check(); c.Status != AsExpected {
		t.Fatalf("fresh pin: %s %s", c.Status, c.Reason)
	}
	path := PinPath(corpus, "echo_lossy", 1)
	data, _ := os.ReadFile(path)
	h, _ := ReadPinHeader(data)
	os.WriteFile(path, []byte(strings.Replace(string(data), h.Digest, "beef", 1)), 0o644)
	if c := check(); c.Status != Mismatch || !strings.Contains(c.Reason, "pinned replay differs: digest") {
		t.Errorf("tampered pin: %s %s", c.Status, c.Reason)
	}
}

func TestDirItems_ReportsFilesThatDoNotLoad(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bad.toml"), []byte("name = 3\n"), 0o644)
	if _, err := DirItems(dir, builtin.Registry()); err == nil || !strings.Contains(err.Error(), "bad.toml: ") {
		t.Errorf("err = %v", err)
	}
	if _, err := DirItems(t.TempDir(), builtin.Registry()); err == nil || !strings.Contains(err.Error(), "no .toml scenario files") {
		t.Errorf("empty dir: err = %v", err)
	}
}

func TestLibraryItems_LoadsTheEmbeddedLibrary(t *testing.T) {
	items, err := LibraryItems(builtin.Registry())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, it := range items {
		found = found || it.Name == "reference/echo_parity"
		if strings.HasPrefix(it.Name, "regression/") && it.Pin == nil {
			t.Errorf("%s: a regression scenario without a pin header", it.Name)
		}
	}
	if !found {
		t.Error("reference/echo_parity missing")
	}
}

// TestLibrary_EveryScenarioMeetsItsExpectation runs the whole embedded
// library — smoke, reproduction, topology, reference and every pinned
// regression — and holds each file to its '# expect:' header: pass-now
// must not fail, fail-until-fix must fail, and a pin must replay its
// digest and verdicts byte for byte.
func TestLibrary_EveryScenarioMeetsItsExpectation(t *testing.T) {
	reg := builtin.Registry()
	items, err := LibraryItems(reg)
	if err != nil {
		t.Fatal(err)
	}
	counts, _ := Check(context.Background(), items, reg, 2, func(c Checked) {
		if c.Status != AsExpected && c.Status != Reported {
			t.Errorf("%s: %v", c.Name, c)
		}
	})
	if counts[AsExpected] < 10 {
		t.Fatalf("only %d library scenarios checked: %v", counts[AsExpected], counts)
	}
}
