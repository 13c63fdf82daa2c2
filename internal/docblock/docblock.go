// Package docblock keeps a command's printed output and the document that
// shows it the same: a document holds the output between two marker
// lines naming the command, and the command's -check compares what it
// would print now with that block, so CI fails when the code changed the
// figures and the document was not regenerated.
package docblock

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Markers are the lines around the output of command in a document.
func Markers(command string) (begin, end string) {
	return "<!-- begin: the output of " + command + " -->", "<!-- end: the output of " + command + " -->"
}

// Block is the text between the markers of command in doc: what the
// command printed when the document was last regenerated.
func Block(doc, command string) (string, error) {
	begin, end := Markers(command)
	_, rest, ok := strings.Cut(doc, begin+"\n")
	if !ok {
		return "", fmt.Errorf("no line %q", begin)
	}
	block, _, ok := strings.Cut(rest, end+"\n")
	if !ok {
		return "", fmt.Errorf("no line %q after the begin marker", end)
	}
	return block, nil
}

// ErrStale is Check's failure: the document does not hold the output.
var ErrStale = errors.New("stale")

// Check compares command's block in the document at path with got. When
// they differ it writes a unified diff to stderr and returns ErrStale;
// any other error is the document's (unreadable, no markers).
func Check(path, command, got string, stderr io.Writer) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	want, err := Block(string(doc), command)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if want == got {
		return nil
	}
	fmt.Fprintf(stderr, "%s does not hold the output of %s (- the doc, + this run):\n%s", path, command,
		udiff.Unified(path, "this run", want, got))
	return ErrStale
}
