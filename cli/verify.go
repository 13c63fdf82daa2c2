package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/detsim/detsim/bundle"
)

const verifyUsage = `usage: detsim verify BUNDLE

Checks that the bundle directory BUNDLE is internally consistent: every
file against the manifest's SHA-256 list, the manifest against
scenario.toml (seed, duration), the snapshots against the scenario's
requests (docs/bundle.md, "What detsim verify checks"). A hash list is
not a signature: rerunning scenario.toml and comparing digests is the
proof of who made it. Exit: 0 intact, 1 a mismatch (each is printed),
2 a manifest it cannot read.
`

func cmdVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if len(pos) != 1 {
		return usageErrIn(stderr, "verify", "needs exactly one BUNDLE directory, got %d", len(pos))
	}
	problems, err := bundle.Verify(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "detsim: verify: %v\n", err)
		return exitUsage
	}
	for _, p := range problems {
		fmt.Fprintf(stdout, "MISMATCH  %s\n", p)
	}
	if len(problems) > 0 {
		fmt.Fprintf(stdout, "%s: %d problem(s)\n", pos[0], len(problems))
		return exitFailed
	}
	fmt.Fprintf(stdout, "%s: intact\n", pos[0])
	return exitOK
}
