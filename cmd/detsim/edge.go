package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/detsim/detsim/edge"
	"github.com/detsim/detsim/hosts/builtin"
)

func cmdEdge(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fmt.Fprint(stdout, edge.Usage)
			return exitOK
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return edge.Command(ctx, args, stdout, stderr, builtin.Registry(), version())
}
