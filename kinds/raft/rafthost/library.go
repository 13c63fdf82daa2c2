package rafthost

import (
	"embed"

	"github.com/detsim/detsim/hosts"
)

// libraryFiles is the kind's library (hosts.Librarian): scenarios as
// raft/<name>.toml, properties as properties/<name>.toml. Each
// scenario's first comment block says what it reproduces and what it
// expects.
//
//go:embed library
var libraryFiles embed.FS

var library = hosts.EmbeddedLibrary(libraryFiles, "library")
