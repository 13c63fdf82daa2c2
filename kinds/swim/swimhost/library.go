package swimhost

import (
	"embed"

	"github.com/detsim/detsim/hosts"
)

// libraryFiles is the kind's library (hosts.Librarian): scenarios as
// <dir>/<name>.toml (smoke/, reproduction/, topology/, failure_modes/,
// lifeguard/), named as they were when they lived in scenarios/
// ("smoke/three_mesh"), and the gossip-flap properties as
// properties/<name>.toml. Each scenario's first comment block says what it
// reproduces and what it expects. The testbed and calibration pairs and
// the regression corpus stay in the core's scenarios/ (docs/architecture.md,
// "The libraries").
//
//go:embed library
var libraryFiles embed.FS

var library = hosts.EmbeddedLibrary(libraryFiles, "library")
