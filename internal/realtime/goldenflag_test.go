package realtime

// Every test binary of the module knows -update, so that
// `go test ./... -update` regenerates every golden (docs/golden-log.md):
// internal/golden registers the flag, once.
import _ "github.com/detsim/detsim/internal/golden"
