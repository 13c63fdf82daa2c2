// Package flagargs parses a command line whose flags and positional
// arguments come in any order, for every detsim command that takes both.
package flagargs

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/detsim/detsim/internal/suggest"
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
			return nil, didYouMean(fs, err)
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

// didYouMean adds to the flag package's "flag provided but not defined:
// -seeed" the flag of fs nearest the one given, when one is near
// ("did you mean --seed?"): a mistyped flag was refused with no hint
// (issue 33).
func didYouMean(fs *flag.FlagSet, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: ")
	if !ok {
		return err
	}
	name = strings.TrimLeft(name, "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	s := suggest.Near(name, names)
	if s == "" {
		return err
	}
	dashes := "--"
	if len(s) == 1 {
		dashes = "-"
	}
	return fmt.Errorf("%w: did you mean %s%s?", err, dashes, s)
}
