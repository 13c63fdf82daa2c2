// Package term is detsim's side of the terminal: whether a stream is
// one, for the parts of detsim that behave differently on one (the
// stepper needs one; sweeps, checks and shrinks draw a progress bar on
// one and print plain lines otherwise), and the escaping that keeps
// strings from bundles and scenarios from acting on it (Escape, Writer).
//
// A terminal is a descriptor that answers a terminal ioctl (through
// charmbracelet/x/term, which bubbletea already uses), not merely a
// character device: /dev/null is a character device, and output sent
// there must not be drawn as for a screen.
package term

import (
	"io"
	"os"

	xterm "github.com/charmbracelet/x/term"
)

// IsTerminal reports whether w is an *os.File open on a terminal. Any
// other writer (a buffer, a pipe, a file, /dev/null) is not one.
func IsTerminal(w io.Writer) bool {
	f, ok := Raw(w).(*os.File)
	return ok && f != nil && xterm.IsTerminal(f.Fd())
}
