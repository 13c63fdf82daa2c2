package sweep

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/fstree"
	"github.com/detsim/detsim/internal/golden"
	"github.com/detsim/detsim/internal/outfile"
	"github.com/detsim/detsim/internal/scratch"
	"github.com/detsim/detsim/scenarios"
)

// regressionDir is the pinned corpus, replayed on every go test.
const regressionDir = "../scenarios/regression"

// TestCorpus_EveryPinReplaysByteIdentically replays every pinned failing
// seed (seeds/000: "a failing seed is a regression: it is checked in and
// replayed on every run") and requires the digest and the verdicts it
// was pinned with (seeds/001: byte-identical replay). After an intended
// change, `go test ./sweep -run TestCorpus -update` re-pins; the commit
// says why (docs/golden-log.md).
func TestCorpus_EveryPinReplaysByteIdentically(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(regressionDir, "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Skip("the regression corpus is empty")
	}
	reg := builtin.Registry()
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if golden.Updating() { // the one -update flag: re-pin from a fresh run
				if _, err := Repin(context.Background(), path, reg); err != nil {
					t.Fatal(err)
				}
			}
			r, err := ReplayPin(context.Background(), path, reg)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range r.Mismatches {
				t.Errorf("%s: %s (if the change is intended: go test ./sweep -run TestCorpus -update)", path, m)
			}
			// The header must agree with the run, and the file must be a
			// library scenario whose expectation matches.
			sc, err := scenarios.Load(path, reg)
			if err != nil {
				t.Fatal(err)
			}
			want := "pass-now"
			if len(r.Outcome.Failing()) > 0 {
				want = "fail-until-fix"
			}
			if sc.Expect != want || strings.Join(r.Header.Failing, ",") != strings.Join(r.Outcome.Failing(), ",") {
				t.Errorf("header says %s, failing %v; the run fails %v", sc.Expect, r.Header.Failing, r.Outcome.Failing())
			}
		})
	}
}

func TestReplayPin_NoticesATamperedPin(t *testing.T) {
	corpus := t.TempDir()
	_, err := Run(context.Background(), lossy(t), builtin.Registry(), Config{Start: 1, Count: 1, Corpus: corpus})
	if err != nil {
		t.Fatal(err)
	}
	path := PinPath(corpus, "echo_lossy", 1)
	reg := builtin.Registry()
	data, _ := os.ReadFile(path)
	h, ok := ReadPinHeader(data)
	if !ok {
		t.Fatal("no header")
	}
	os.WriteFile(path, []byte(strings.Replace(string(data), h.Digest, strings.Repeat("0", 64), 1)), 0o644)
	vpath := VerdictsPath(path)
	v, _ := os.ReadFile(vpath)
	os.WriteFile(vpath, []byte(strings.Replace(string(v), "Fail", "Pass", 1)), 0o644)
	r, err := ReplayPin(context.Background(), path, reg)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Mismatches) != 2 || !strings.HasPrefix(r.Mismatches[0], "digest ") || !strings.Contains(r.Mismatches[1], "verdicts differ from echo_lossy-1.verdicts.json at line") {
		t.Fatalf("mismatches %q", r.Mismatches)
	}
	// Repin records the run again; the replay is then clean.
	if _, err := Repin(context.Background(), path, reg); err != nil {
		t.Fatal(err)
	}
	if r, _ := ReplayPin(context.Background(), path, reg); len(r.Mismatches) != 0 {
		t.Errorf("after Repin: %q", r.Mismatches)
	}
	os.Remove(vpath)
	if r, _ := ReplayPin(context.Background(), path, reg); len(r.Mismatches) != 1 || !strings.Contains(r.Mismatches[0], "no echo_lossy-1.verdicts.json") {
		t.Errorf("without a verdicts file: %q", r.Mismatches)
	}
}

func TestReadPinHeader(t *testing.T) {
	h, ok := ReadPinHeader([]byte("# expect: fail-until-fix\n#\n# prose: with a colon\n# property: p\n# seed: 17\n# expected: pass\n# failing: a/p0, b\n# digest: abc\n\nname = \"x\"\n# digest: later\n"))
	if !ok || h.Property != "p" || h.Seed != 17 || h.Expected != "pass" || strings.Join(h.Failing, "|") != "a/p0|b" || h.Digest != "abc" {
		t.Errorf("%+v %v", h, ok)
	}
	if _, ok := ReadPinHeader([]byte("# expect: pass-now\nname = \"x\"\n")); ok {
		t.Error("a scenario without a digest line read as a pin")
	}
}

// A pin refused because a file the user wrote stands at its scenario
// path writes nothing: before, its verdicts file was written first and
// stayed, and then refused every later pin of the seed, even after the
// user's file was moved away.
func TestWritePin_RefusedPinWritesNothing(t *testing.T) {
	dir := t.TempDir()
	p := Pin{Property: "prop", Seed: 7, Expected: "pass", Failing: []string{"a"}, Digest: "d",
		Scenario: []byte("name = \"x\"\n"), Verdicts: []byte("[]\n")}
	path := PinPath(dir, p.Property, p.Seed)
	if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WritePin(dir, p, false); err == nil {
		t.Fatal("a pin over a file the user wrote was written")
	}
	if _, err := os.Lstat(VerdictsPath(path)); !os.IsNotExist(err) {
		t.Fatalf("the refused pin left its verdicts file: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "mine" {
		t.Fatalf("the user's file changed: %q", data)
	}
	os.Remove(path)
	if _, err := WritePin(dir, p, false); err != nil {
		t.Fatalf("once the user's file is gone, the pin is written: %v", err)
	}
}

// A pin a killed sweep left half written — its verdicts file, no .toml,
// the temporaries of both writes — is finished by the next WritePin of
// that seed, and the temporaries go. A verdicts file holding anything
// else, or a link to the very same bytes, is not provably detsim's: it
// is refused and left as it is, and no .toml is written beside it.
// Before, every later pin of the seed was refused ("already exists").
func TestWritePin_FinishesAPinAKilledSweepLeft(t *testing.T) {
	p := Pin{Property: "prop", Seed: 58, Expected: "fail", Failing: []string{"a"}, Digest: "d",
		Scenario: []byte("name = \"x\"\n"), Verdicts: []byte("[]\n")}

	dir := t.TempDir()
	path := PinPath(dir, p.Property, p.Seed)
	vpath := VerdictsPath(path)
	if err := os.WriteFile(vpath, p.Verdicts, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tmp := range []string{"." + filepath.Base(vpath) + scratch.TempInfix + "1", "." + filepath.Base(path) + scratch.TempInfix + "2"} {
		if err := os.WriteFile(filepath.Join(dir, tmp), []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := WritePin(dir, p, false); err != nil || got != path {
		t.Fatalf("WritePin over a half pin = %q, %v; want it finished", got, err)
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, p.File(path)) {
		t.Errorf("the finished pin holds %q", data)
	}
	fstree.Holds(t, dir, filepath.Base(path), filepath.Base(vpath))

	for name, plant := range map[string]func(dir, vpath string) error{
		"other verdicts": func(_, vpath string) error { return os.WriteFile(vpath, []byte("mine\n"), 0o644) },
		"a link": func(dir, vpath string) error {
			same := filepath.Join(dir, "same.json")
			if err := os.WriteFile(same, p.Verdicts, 0o644); err != nil {
				return err
			}
			return os.Symlink(same, vpath)
		},
	} {
		dir := t.TempDir()
		path := PinPath(dir, p.Property, p.Seed)
		vpath := VerdictsPath(path)
		if err := plant(dir, vpath); err != nil {
			t.Fatal(err)
		}
		before, _ := os.ReadFile(vpath)
		if _, err := WritePin(dir, p, false); !errors.Is(err, outfile.ErrExists) {
			t.Errorf("%s: WritePin = %v, want it refused as existing", name, err)
		}
		if after, _ := os.ReadFile(vpath); !bytes.Equal(after, before) {
			t.Errorf("%s: the verdicts file became %q", name, after)
		}
		if _, err := os.Lstat(path); !os.IsNotExist(err) {
			t.Errorf("%s: a .toml was written beside it: %v", name, err)
		}
	}
}
