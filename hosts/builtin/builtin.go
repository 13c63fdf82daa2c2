// Package builtin assembles the registry of every host kind detsim ships,
// so the CLI and tests build hosts from one list.
package builtin

import (
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/agent/agent"
	"github.com/detsim/detsim/kinds/agent/provider"
	"github.com/detsim/detsim/kinds/agent/tool"
	"github.com/detsim/detsim/kinds/echo"
	"github.com/detsim/detsim/kinds/raft/rafthost"
	"github.com/detsim/detsim/kinds/swim/swimhost"
)

// Kinds returns every built-in host kind, in registration order: what
// cmd/detsim hands cli.Main, and what an outside module adds its own
// kinds to when it wants both (docs/kinds.md).
func Kinds() []hosts.Kind {
	return []hosts.Kind{echo.Kind, swimhost.Kind, provider.Kind, tool.Kind, agent.Kind, rafthost.Kind}
}

// Registry returns a new registry holding every built-in host kind.
func Registry() *hosts.Registry {
	return hosts.NewRegistry(Kinds()...)
}
