// Command ringsim is detsim for the token ring: every detsim command
// (the stepper, --batch, sweep, shrink, render, why, list, check, …)
// with the ring kind alone. To have detsim's own kinds beside it, pass
// append(builtin.Kinds(), ring.Kind)... instead.
package main

import (
	"os"

	"github.com/detsim/detsim/cli"

	"example.com/tokenring/ring"
)

func main() { os.Exit(cli.Main(ring.Kind)) }
