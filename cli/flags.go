package cli

import (
	"flag"

	"github.com/detsim/detsim/internal/flagargs"
)

// parseInterspersed parses flags wherever they appear among the
// positional arguments; "--" ends flag parsing (internal/flagargs, which
// the commands living outside this package share).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	return flagargs.Interspersed(fs, args)
}
