// Command detsim runs deterministic simulations of distributed protocols:
// its commands, flags and exit codes are package cli's.
package main

import (
	"os"

	"github.com/detsim/detsim/cli"
)

// simulatorVersion is set at link time by release and container builds
// (go build -ldflags "-X main.simulatorVersion=V"; docs/bundle.md).
var simulatorVersion string

func main() {
	cli.SimulatorVersion = simulatorVersion
	os.Exit(cli.Main())
}
