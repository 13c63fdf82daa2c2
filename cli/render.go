package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/outfile"
	"github.com/detsim/detsim/render"
)

const renderUsage = `usage: detsim render BUNDLE [-o FILE.html] [--from T] [--to T] [--force] [--no-charts]
       detsim render --compare A B [-o FILE.html]

Writes one self-contained HTML page of a bundle (docs/render.md): a
space-time diagram of every host's messages, drops, timers and
mutations, charts of what the host kinds declare (message sizes,
updates, suspicions, link bytes per second, drops, call latencies) on
the same time axis, each observer's view of each subject over time, and the
verdicts linked to their evidence. Opens from disk in any current
browser; nothing is fetched. --compare lays two runs on one time axis.
The page goes to FILE (default BUNDLE.html beside the bundle), which is
never replaced unless --force is given. Exit: 0 written, 1 a bundle that
fails verify, 2 invalid input.
`

func cmdRender(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	out := fs.String("o", "", "the page to write (default BUNDLE.html)")
	from := fs.String("from", "", "draw from this virtual time (12.5s, 250ms, or ns)")
	to := fs.String("to", "", "draw up to this virtual time")
	compare := fs.Bool("compare", false, "draw the two bundles A B on one time axis")
	force := fs.Bool("force", false, "replace an existing file at -o")
	noCharts := fs.Bool("no-charts", false, "leave out the charts of the kinds' series (a smaller page)")
	// The flags, then this command's own checks of its arguments, alike
	// in shape across the subcommands: the shared steps are
	// prologue.go's, the checks and their messages are each command's.
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	want := 1
	if *compare {
		want = 2
	}
	if len(pos) != want {
		return usageErrIn(stderr, "render", "needs %d bundle(s), got %d", want, len(pos))
	}
	opts := render.Options{NoCharts: *noCharts, Kinds: reg}
	for _, t := range []struct {
		flag, val string
		dst       *int64
	}{{"--from", *from, &opts.FromNs}, {"--to", *to, &opts.ToNs}} {
		if t.val == "" {
			continue
		}
		if *t.dst, err = debugger.ParseTime(t.val, "ns"); err != nil {
			return usageErrIn(stderr, "render", "%s %q: %v", t.flag, t.val, err)
		}
	}
	if *compare {
		opts.Compare = pos[1]
	}
	dest := *out
	if dest == "" {
		if flagSet(fs, "o") {
			return usageErrIn(stderr, "render", "-o is empty; name a file, or leave -o out")
		}
		dest = strings.TrimRight(filepath.Clean(pos[0]), string(filepath.Separator)) + ".html"
	}
	if err := outfile.Check(dest, *force); err != nil {
		return usageErrIn(stderr, "render", "-o: %v", err)
	}
	var page bytes.Buffer
	st, err := render.Write(&page, pos[0], opts)
	if err != nil {
		fmt.Fprintf(stderr, "detsim: %v\n", err)
		return render.ExitCode(err)
	}
	if err := outfile.Write(dest, page.Bytes(), *force); err != nil {
		fmt.Fprintf(stderr, "detsim: render: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "wrote     %s (%d bytes, %d records, %d arrows", dest, page.Len(), st.Records, st.Arrows)
	if st.ArrowsElided > 0 || st.MarksElided > 0 {
		fmt.Fprintf(stdout, "; %d sends only as density and %d marks left out, as the page says", st.ArrowsElided, st.MarksElided)
	}
	fmt.Fprintln(stdout, ")")
	return exitOK
}
