package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/tui/screen"
)

// The headless `--batch --break-on` / `--until` path lives apart from the
// stepper's (run.go): it draws with package screen and links nothing of
// the interactive program (TestBatchBreakOn_ImportsNoStepper).

// runToBreak runs the stepper's engine headless to the first breakpoint
// hit (or the end) and prints where it stopped and the stepper's panes as
// plain text, so a CI log shows the state at the failure. It writes no
// bundle. Exit 1 when an assertion had failed by then.
func runToBreak(sc *scenarios.Scenario, reg *hosts.Registry, bps []debugger.Breakpoint, width int, arg string, stdout, stderr io.Writer) int {
	sess, err := debugger.NewSession(sc, reg, nil)
	if err != nil {
		fmt.Fprintf(stderr, "detsim: %v\n", err)
		return exitUsage
	}
	sess.SetCheckpointBudget(0) // one move forward needs none: cost what --batch costs
	hit := sess.Continue(bps)
	where := "the run ended"
	if hit.Breakpoint != nil {
		where = "breakpoint " + hit.Breakpoint.String()
	}
	var set []string
	for _, b := range bps {
		set = append(set, b.String())
	}
	fmt.Fprintf(stdout, "stopped   %s at step %d, t=%s\n", where, hit.Step, fmtNs(hit.At))
	fmt.Fprintf(stdout, "breaks    %s\n", strings.Join(set, ", "))
	text, err := screen.RenderText(sess, width, 48, hit.Breakpoint, bps...)
	if err != nil {
		fmt.Fprintf(stderr, "detsim: %v\n", err)
		return exitInternal
	}
	fmt.Fprint(stdout, text)
	fmt.Fprintf(stdout, "replay    detsim --seed %d %s   (then g %d)\n", sc.Seed, arg, hit.Step)
	if sess.Failed() {
		return exitFailed
	}
	return exitOK
}
