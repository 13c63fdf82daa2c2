// Command memberlistd runs one unmodified hashicorp/memberlist v0.7.0
// node as a daemon, on memberlist's own network transport (UDP and TCP
// on real sockets) and the wall clock: a SWIM nobody here wrote, for the
// kernel testbed's ground truth. It takes swimd's command line
// (kinds/swim/daemoncli), so a supervisor drives both the same way:
//
//	memberlistd --id a --bind 127.0.0.1:7001 \
//	      --peers a=127.0.0.1:7001,b=127.0.0.2:7001,c=127.0.0.3:7001 \
//	      [--seeds b] [--state member|joining] [--kind-config node.toml] \
//	      [--events a.ndjson] [--snapshot-dir DIR] [--snapshot-every 10s] \
//	      [--snapshot-on-stop] [--start-unix-ns N] [--duration 10m] \
//	      [--netns dtb-RUN-p0]
//
// It writes what memberlist does as events.ndjson lines in detsim's swim
// schema (kinds/swim/bench/mlevents: the mapping the synctest witness uses),
// virtual_time_ns counting from --start-unix-ns. On binding it prints
// "memberlistd: <id> ready on <addr>" to stderr. SIGUSR1 (or
// --snapshot-every) writes a snapshot of memberlist's view; SIGTERM or
// SIGINT flushes everything and exits 0, as does the end of --duration.
// It stops with Shutdown, never Leave: a testbed PeerKill is a process
// stopping, which the others must detect by probing. kinds/swim/bench/README.md has
// the flags, the kind_config mapping and what is recorded.
//
// Exit codes: 0 stopped by a signal or at --duration; 1 a runtime error
// (the port in use, a write failure); 2 invalid flags or kind_config.
package main

import (
	"fmt"
	"io"

	"github.com/detsim/detsim/kinds/swim/daemoncli"
)

func main() { daemoncli.Main(run) }

// exitf prints a message to stderr and returns code.
func exitf(stderr io.Writer, code int, format string, args ...any) int {
	fmt.Fprintf(stderr, "memberlistd: "+format+"\n", args...)
	return code
}
