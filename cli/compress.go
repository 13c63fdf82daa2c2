package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/detsim/detsim/bundle"
)

const compressUsage = `usage: detsim compress BUNDLE...

Rewrites each bundle directory BUNDLE stored compressed, for a corpus
kept in git: every file but manifest.json gzip-compressed (FILE.gz), a
detsim-bundle/1 bundle converted to detsim-bundle/2 on the way (its
snapshot files become snapshots.records). The manifest's digest and the
hashes of every file's content are unchanged, and every reader (verify,
render, calibrate, schemadiff, why) reads the result as it read the
original (docs/bundle.md, "Compressed bundles"). A bundle is rewritten
only if it verifies, and the rewritten copy is verified before it
replaces it. Exit: 0 all compressed, 1 one did not verify (it is left as
it was), 2 one could not be read or written.
`

func cmdCompress(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compress", flag.ContinueOnError)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if len(pos) == 0 {
		return usageErrIn(stderr, "compress", "needs at least one BUNDLE directory")
	}
	code := exitOK
	for _, dir := range pos {
		problems, err := bundle.Verify(dir)
		switch {
		case err != nil:
			fmt.Fprintf(stderr, "detsim: compress: %v\n", err)
			code = max(code, exitUsage)
			continue
		case len(problems) > 0:
			fmt.Fprintf(stderr, "detsim: compress: %s does not verify (%d problem(s); detsim verify %s lists them): left as it was\n", dir, len(problems), dir)
			code = max(code, exitFailed)
			continue
		}
		if err := bundle.Compress(dir); err != nil {
			fmt.Fprintf(stderr, "detsim: compress: %v\n", err)
			code = max(code, exitUsage)
			continue
		}
		fmt.Fprintf(stdout, "%s: compressed\n", dir)
	}
	return code
}
