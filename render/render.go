// Package render draws a bundle as one self-contained HTML page (issue
// 13, spec §9.5): a space-time diagram of every host's messages, drops,
// timers and mutations over virtual time, each observer's membership
// view of each subject, and the verdicts linked to the records they cite.
//
// The page needs nothing but itself: its script, style and data are
// inline, and it fetches nothing. A big run is drawn by level of detail
// (docs/render.md): the data holds per-lane densities for the zoomed-out
// view and a capped set of individual records per time tile for the
// zoomed-in one, and the page names every count it aggregated or left out.
//
// render sits outside the determinism fence, but its output is a function
// of the bundle and the Options alone: no map order, clock or environment
// reaches the bytes it writes.
package render

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/internal/safefile"
)

// Options says what part of a bundle to draw and what to mark on it.
type Options struct {
	// FromNs and ToNs bound the virtual time drawn; ToNs 0 means the end
	// of the run. Records outside [FromNs, ToNs] are left out and the page
	// counts them; a message is kept when its send or its receive is inside.
	FromNs, ToNs int64
	// Compare is a second bundle drawn on the same time axis, over the
	// union of both runs' hosts, in a second colour. "" draws one run.
	Compare string
	// Mark, when set, marks MarkNs on the time axis and opens the page
	// there: the stepper's current instant. MarkStep, if not 0, labels it.
	Mark     bool
	MarkNs   int64
	MarkStep int64
	// Title replaces the page title (default: the scenario name and seed).
	Title string
	// Kinds are the host kinds whose declared series the page charts
	// (hosts.Charts); nil is every kind detsim ships.
	Kinds *hosts.Registry
	// NoCharts leaves the charts out (a smaller page; and what their
	// cost is measured against).
	NoCharts bool
}

func (o Options) kinds() *hosts.Registry {
	if o.Kinds == nil {
		return builtin.Registry()
	}
	return o.Kinds
}

// Stats says what one Write read and wrote.
type Stats struct {
	Records  int64 // event records read, over every bundle
	Messages int   // message sends found
	Arrows   int   // individual arrows in the page (delivered or dropped)
	// ArrowsElided counts sends drawn only as density, over the per-tile cap.
	ArrowsElided int
	Marks        int
	MarksElided  int
	// TextsInlined counts the records whose full text the page holds.
	TextsInlined int
	Bytes        int64 // HTML bytes written
	Elapsed      time.Duration
}

// BundleError is a bundle that cannot be read: missing, not a bundle, or
// holding a record the reader refuses. The CLI maps it to exit 2.
type BundleError struct {
	// Path names the file (or directory) at fault.
	Path string
	Err  error
}

func (e *BundleError) Error() string { return fmt.Sprintf("render: %s: %v", e.Path, e.Err) }
func (e *BundleError) Unwrap() error { return e.Err }

// VerifyError is a bundle that bundle.Verify finds inconsistent with its
// manifest; render refuses it. The CLI maps it to exit 1, as detsim
// verify does.
type VerifyError struct {
	Dir      string
	Problems []bundle.Problem
}

func (e *VerifyError) Error() string {
	p := e.Problems[0]
	more := ""
	if len(e.Problems) > 1 {
		more = fmt.Sprintf(" (and %d more problems; run detsim verify %s)", len(e.Problems)-1, e.Dir)
	}
	return fmt.Sprintf("render: bundle %s fails verify: %s: %s%s", e.Dir, filepath.Join(e.Dir, filepath.FromSlash(p.Path)), p.Msg, more)
}

// OptionsError is Options that cannot be drawn (a window that ends
// before it starts): a usage error, exit 2.
type OptionsError struct{ Msg string }

func (e *OptionsError) Error() string { return "render: " + e.Msg }

// ExitCode is the detsim exit code for an error Write returned: 1 for a
// bundle that fails verify, 2 for one that cannot be read or for bad
// Options, 3 otherwise
// (an I/O error on w, or a bug).
func ExitCode(err error) int {
	var ve *VerifyError
	var be *BundleError
	var oe *OptionsError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ve):
		return 1
	case errors.As(err, &be), errors.As(err, &oe):
		return 2
	}
	return 3
}

// Write renders the bundle in bundleDir (and opts.Compare, if set) as one
// HTML page on w. It verifies each bundle first (bundle.Verify) and
// refuses one with problems.
func Write(w io.Writer, bundleDir string, opts Options) (*Stats, error) {
	start := time.Now()
	st := &Stats{}
	if opts.ToNs != 0 && opts.ToNs < opts.FromNs {
		return nil, &OptionsError{fmt.Sprintf("--to %d is before --from %d", opts.ToNs, opts.FromNs)}
	}
	dirs := []string{bundleDir}
	if opts.Compare != "" {
		dirs = append(dirs, opts.Compare)
	}
	runs := make([]*run, 0, len(dirs))
	for _, d := range dirs {
		if err := verify(d); err != nil {
			return nil, err
		}
		r, err := load(d, opts)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	p := plan(runs, opts)
	for _, r := range runs {
		st.Records += r.records
		st.Messages += r.nMsgs
		st.Arrows += len(r.msgs)
		st.ArrowsElided += r.nMsgs - len(r.msgs)
		st.Marks += len(r.marks)
		st.MarksElided += r.nMarks - len(r.marks)
		st.TextsInlined += len(r.texts)
	}
	sum := sha256.New()
	out := &countWriter{w: w}
	cw := &countWriter{w: bufio.NewWriterSize(io.MultiWriter(out, sum), 1<<16)}
	if err := writePage(cw, p, runs, opts); err != nil {
		return nil, err
	}
	if err := cw.w.(*bufio.Writer).Flush(); err != nil {
		return nil, err
	}
	if cw.err != nil {
		return nil, cw.err
	}
	// The hash of the page is its last line (IsPage).
	if _, err := out.Write(trailer(sum.Sum(nil))); err != nil {
		return nil, err
	}
	st.Bytes = out.n
	st.Elapsed = time.Since(start)
	return st, nil
}

func verify(dir string) error {
	if fi, err := os.Stat(dir); err != nil {
		return &BundleError{Path: dir, Err: errors.New("no such bundle directory")}
	} else if !fi.IsDir() {
		return &BundleError{Path: dir, Err: errors.New("not a bundle directory (" + safefile.Describe(fi.Mode()) + ")")}
	}
	problems, err := bundle.Verify(dir)
	if err != nil {
		return &BundleError{Path: filepath.Join(dir, bundle.ManifestFile), Err: err}
	}
	if len(problems) > 0 {
		return &VerifyError{Dir: dir, Problems: problems}
	}
	return nil
}

// countWriter counts what reaches w and keeps its first error. It looks
// like other small writers (the bench's error log) only by its shape.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(b []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	c.err = err
	return n, err
}
