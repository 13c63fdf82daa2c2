// Package flagargs parses a command line whose flags and positional
// arguments come in any order, for every detsim command that takes both.
package flagargs

import (
	"flag"
	"io"
)

// Interspersed parses flags wherever they appear among the positional
// arguments (`detsim x.toml --seed 3` as well as `detsim --seed 3
// x.toml`), which the flag package alone does not, and returns the
// positional ones. "--" ends flag parsing. The flag set prints nothing:
// the caller reports the error its own way.
func Interspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
