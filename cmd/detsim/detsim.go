// Command detsim runs deterministic simulations of distributed protocols:
// its commands, flags and exit codes are package cli's, here with every
// host kind detsim ships.
package main

import (
	"os"

	"github.com/detsim/detsim/cli"
	"github.com/detsim/detsim/hosts/builtin"
)

// simulatorVersion is set at link time by release and container builds
// (go build -ldflags "-X main.simulatorVersion=V"; docs/bundle.md).
var simulatorVersion string

func main() {
	cli.SimulatorVersion = simulatorVersion
	os.Exit(cli.Main(builtin.Kinds()...))
}
