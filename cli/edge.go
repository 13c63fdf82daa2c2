package cli

import (
	"io"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/term"
	"github.com/detsim/detsim/kinds/agent/edge"
)

func cmdEdge(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	ctx, stop := interruptible()
	defer stop()
	return edge.Command(ctx, args, stdout, stderr, reg, version())
}

// cmdToolRun is `detsim tool-run`: SIGINT and SIGTERM, the agent
// cancelling its child, cancel the run at the edge.
//
// Its stdout is the tool's output, data its agent reads as the tool's
// own bytes (binary output as bytes, docs/agents.md): it goes to the
// writer under run's escaping, untouched. Only detsim's own messages, on
// stderr, are escaped.
func cmdToolRun(args []string, stdout, stderr io.Writer) int {
	ctx, stop := interruptible()
	defer stop()
	return edge.ToolRun(ctx, args, term.Raw(stdout), stderr)
}
