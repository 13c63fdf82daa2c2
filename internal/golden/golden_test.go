package golden

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what Check reports instead of
// failing the real test.
type recorder struct {
	testing.TB
	name   string
	errors []string
	fatal  bool
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	r.fatal = true
	panic(r)
}
func (r *recorder) Fatal(args ...any) { r.Fatalf("%s", fmt.Sprint(args...)) }

// setUpdate sets -update to v for the rest of t, so that these tests
// mean the same under go test ./... -update.
func setUpdate(t *testing.T, v bool) {
	f := flag.Lookup("update").Value
	old := f.String()
	if err := f.Set(fmt.Sprint(v)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Set(old) })
}

// check runs Check on a recorder, with -update off unless the test set
// it, and returns what it reported.
func check(t *testing.T, path, got string) *recorder {
	r := &recorder{TB: t, name: "TestScreens/small_80x24.golden"}
	func() {
		defer func() {
			if p := recover(); p != nil && p != r {
				panic(p)
			}
		}()
		Check(r, path, got)
	}()
	return r
}

func TestCheck_EqualPasses(t *testing.T) {
	setUpdate(t, false)
	path := filepath.Join(t.TempDir(), "x.golden")
	os.WriteFile(path, []byte("a\nb\n"), 0o644)
	if r := check(t, path, "a\nb\n"); len(r.errors) > 0 {
		t.Fatalf("equal output reported: %q", r.errors)
	}
}

// TestCheck_MismatchPrintsDiffAndCommand: one changed byte fails, and the
// report is a unified diff naming the file plus the command that
// regenerates exactly this subtest with the one flag.
func TestCheck_MismatchPrintsDiffAndCommand(t *testing.T) {
	setUpdate(t, false)
	path := filepath.Join(t.TempDir(), "x.golden")
	os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o644)
	r := check(t, path, "one\ntwo\nthreE\n")
	if len(r.errors) != 1 || r.fatal {
		t.Fatalf("want one non-fatal error, got %q (fatal %v)", r.errors, r.fatal)
	}
	msg := r.errors[0]
	for _, want := range []string{
		"--- " + path + "\n",
		"+++ " + path + " (this run)\n",
		"-three\n",
		"+threE\n",
		" two\n",
		"go test ./internal/golden -run '^TestScreens$/^small_80x24\\.golden$' -update",
		"docs/golden-log.md",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("report lacks %q:\n%s", want, msg)
		}
	}
}

func TestCheck_MissingFileSaysHowToCreateIt(t *testing.T) {
	setUpdate(t, false)
	r := check(t, filepath.Join(t.TempDir(), "none.golden"), "x")
	if !r.fatal || len(r.errors) != 1 || !strings.Contains(r.errors[0], "does not exist") || !strings.Contains(r.errors[0], "-update") {
		t.Fatalf("missing golden: %q (fatal %v)", r.errors, r.fatal)
	}
}

func TestCheck_TrailingNewlineIsADifference(t *testing.T) {
	setUpdate(t, false)
	path := filepath.Join(t.TempDir(), "x.golden")
	os.WriteFile(path, []byte("a\n"), 0o644)
	if r := check(t, path, "a"); len(r.errors) != 1 || !strings.Contains(r.errors[0], "No newline at end of file") {
		t.Fatalf("missing trailing newline not shown: %q", r.errors)
	}
}

// TestUpdate_RewritesThenPasses uses the real flag: with -update set,
// Check writes the output (creating directories) and reports nothing.
func TestUpdate_RewritesThenPasses(t *testing.T) {
	setUpdate(t, true)
	path := filepath.Join(t.TempDir(), "new", "x.golden")
	if r := check(t, path, "fresh\n"); len(r.errors) > 0 {
		t.Fatalf("update reported: %q", r.errors)
	}
	if b, _ := os.ReadFile(path); string(b) != "fresh\n" {
		t.Fatalf("update wrote %q", b)
	}
}
