// Command swimd runs one SWIM node (kinds/swim/swim, unchanged) as a daemon on
// a real UDP socket and the wall clock: detsim's "production" side.
//
//	swimd --id a --bind 127.0.0.1:7001 \
//	      --peers a=127.0.0.1:7001,b=127.0.0.1:7002,c=127.0.0.1:7003 \
//	      --cluster-key-file key.hex | --insecure \
//	      [--seeds 127.0.0.1:7002] [--kind-config node.toml] [--events a.ndjson] \
//	      [--snapshot-dir DIR] [--snapshot-every 10s] \
//	      [--start-unix-ns N] [--duration 10m]
//
// It writes its diagnostics as events.ndjson lines in the bundle's event
// schema, virtual_time_ns being nanoseconds since --start-unix-ns (the
// run's shared start instant, so several daemons' records merge on one
// time axis). SIGUSR1 or --snapshot-every writes a tier-2 snapshot;
// SIGTERM or SIGINT flushes everything and exits 0, as does the end of
// --duration. Every datagram is authenticated with the cluster key and
// taken once (docs/live.md, "The cluster key and the replay window");
// without a key file swimd refuses to start unless --insecure is given.
// docs/live.md shows three of them forming a cluster.
//
// Exit codes: 0 stopped by a signal or at --duration; 1 a runtime error
// (the port in use, a write failure); 2 invalid flags or configuration.
package main

import (
	"github.com/detsim/detsim/kinds/swim/daemoncli"
	"github.com/detsim/detsim/kinds/swim/live/swimd"
)

// The daemon is package kinds/swim/live/swimd, which `detsim swimd` runs too.
func main() { daemoncli.Main(swimd.Run) }
