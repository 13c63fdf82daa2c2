package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolve_DirectoryIsABundleOrAnError_Issue9: a directory given as
// SCENARIO is never looked up in the library. A bundle directory loads
// its merged scenario.toml (seed included); any other directory says it
// is one.
func TestResolve_DirectoryIsABundleOrAnError_Issue9(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	bundle := filepath.Join(dir, "t-7")
	for _, d := range []string{plain, bundle} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	merged := strings.Replace(valid, "seed = 1", "seed = 7", 1)
	if err := os.WriteFile(filepath.Join(bundle, "scenario.toml"), []byte(merged), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bundle, "manifest.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A scenario.toml without a manifest is not a bundle.
	if err := os.WriteFile(filepath.Join(plain, "scenario.toml"), []byte(valid), 0o644); err != nil {
		t.Fatal(err)
	}

	s, err := Resolve(bundle, testRegistry())
	if err != nil {
		t.Fatalf("bundle: %v", err)
	}
	if s.Seed != 7 || s.Path != filepath.Join(bundle, "scenario.toml") {
		t.Errorf("bundle loaded seed %d from %q", s.Seed, s.Path)
	}
	_, err = Resolve(plain, testRegistry())
	if want := plain + ": is a directory, not a scenario file (nor a bundle: no manifest.json)"; err == nil || err.Error() != want {
		t.Errorf("plain dir: err = %v\nwant %s", err, want)
	}
	// A directory that shadows a library name is still a directory.
	lib := filepath.Join(dir, "reference", "echo_parity")
	if err := os.MkdirAll(lib, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if _, err := Resolve("reference/echo_parity", testRegistry()); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory named like a library scenario: err = %v", err)
	}
}
