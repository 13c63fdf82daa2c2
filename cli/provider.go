package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/agent/providerserve"
)

const providerServeUsage = `usage: detsim provider-serve SCRIPT [--addr 127.0.0.1:PORT] [--time-scale F] [-q]

Serves a provider script (a script file, a scenario file, or an embedded
scenario such as agent/overloaded) over real HTTP and SSE as the
Anthropic Messages API streams it (POST /v1/messages), faults included,
on real time (docs/agents.md). It binds to loopback only and runs until
Ctrl-C or SIGTERM. Exit: 0 stopped, 2 invalid input or a non-loopback
address, 3 the listener failed.

flags:
  --addr ADDR        loopback address to listen on (default 127.0.0.1:8787; 127.0.0.1:0 picks a free port)
  --time-scale F     multiply every scripted delay by F (0.01: a hundred times faster)
  -q                 no line per request
`

func cmdProviderServe(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprint(stdout, providerServeUsage)
			return exitOK
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return providerserve.Command(ctx, args, stderr, reg)
}
