package agent

import (
	"embed"

	"github.com/detsim/detsim/hosts"
)

// libraryFiles is the agent family's library (hosts.Librarian), shipped
// by the agent kind, which every one of its scenarios runs beside the
// provider and tool kinds: scenarios as agent/<name>.toml, named as they
// were when they lived in scenarios/ ("agent/faults_base"), and the
// agent_faults properties as properties/<name>.toml. Each
// scenario's first comment block says what it reproduces and what it
// expects. Its pinned seeds stay in the core's regression corpus
// (docs/architecture.md, "The libraries").
//
//go:embed library
var libraryFiles embed.FS

var library = hosts.EmbeddedLibrary(libraryFiles, "library")
