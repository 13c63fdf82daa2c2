// Package gobin builds a command of the module once per test binary, for
// the tests that run it as a user does: as a fresh process (detsim, the
// swimd and memberlistd daemons). Each package's tests used to build
// their command their own way; here it is done once, the same way.
package gobin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

type build struct {
	once sync.Once
	path string
	err  error
}

var (
	mu    sync.Mutex
	built = map[string]*build{}
)

// Build returns the path of the command in pkg (a directory, relative
// to the test's package, as go build takes it), built by the first call
// of the test binary into a directory of its own; t fails when the build
// does. Clean removes what Build made.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	abs, err := filepath.Abs(pkg)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	b := built[abs]
	if b == nil {
		b = &build{}
		built[abs] = b
	}
	mu.Unlock()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "detsim-gobin-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, filepath.Base(abs))
		if out, err := exec.Command("go", "build", "-o", b.path, pkg).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("building %s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// Main is a TestMain that runs the tests, then removes what Build made.
func Main(m *testing.M) {
	code := m.Run()
	Clean()
	os.Exit(code)
}

// Clean removes the directories Build made, and nothing else; a
// package's TestMain that does more than Main calls it after m.Run.
func Clean() {
	mu.Lock()
	defer mu.Unlock()
	for _, b := range built {
		if b.path != "" {
			os.RemoveAll(filepath.Dir(b.path))
		}
	}
}
