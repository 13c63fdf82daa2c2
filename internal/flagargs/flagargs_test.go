package flagargs

import (
	"flag"
	"slices"
	"testing"
)

// TestInterspersed: a flag is read wherever it stands among the
// positional arguments, and after "--" nothing is a flag.
func TestInterspersed(t *testing.T) {
	for _, c := range []struct {
		args []string
		pos  []string
		seed uint64
	}{
		{[]string{"x.toml", "--seed", "3"}, []string{"x.toml"}, 3},
		{[]string{"--seed", "3", "x.toml"}, []string{"x.toml"}, 3},
		{[]string{"a", "--seed=4", "b"}, []string{"a", "b"}, 4},
		{[]string{"a", "--", "--seed", "5"}, []string{"a", "--seed", "5"}, 0},
		{nil, nil, 0},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		seed := fs.Uint64("seed", 0, "")
		pos, err := Interspersed(fs, c.args)
		if err != nil || !slices.Equal(pos, c.pos) || *seed != c.seed {
			t.Errorf("%q: %q seed %d (%v), want %q seed %d", c.args, pos, *seed, err, c.pos, c.seed)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	if _, err := Interspersed(fs, []string{"a", "--frobnicate"}); err == nil {
		t.Error("an unknown flag after a positional argument was accepted")
	}
}
