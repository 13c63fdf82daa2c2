package edge

import (
	"strconv"

	"github.com/detsim/detsim/kinds/agent/llmwire"
)

// A tool use's process tree is every process its command started, and
// it ends when the tool use ends, however that is (exit, cancel,
// timeout, the episode's end, the edge's stop): a descendant that
// called setsid or left the process group included (docs/agents.md,
// "Tool processes"). Two ways to know the tree:
//
//   - cgroup: a cgroup v2 child per run, under a parent detsim owns
//     (detsim-tools, in the edge's own cgroup). The command is cloned
//     into it, so every descendant is in it and cannot leave it without
//     privileges a tool should not have; cgroup.kill ends them all at
//     once.
//   - subreaper, when no cgroup v2 is writable: the edge is a child
//     subreaper (its tools' orphans are reparented to it, not to init),
//     the command leads its own process group and carries a marker in its
//     environment, and the tree is what /proc shows in that group, below
//     the command, or with the marker. A descendant that clears its
//     environment and leaves both is still found while its ancestors
//     live, and, an orphan of the edge, when the run ends.
//
// When the command exits with descendants still running, the run's
// record says so (tool_leak, docs/events.md): the tool left them, and the
// edge's cleanup ending them hides nothing.

// leak is what was still running of a tool's tree when its command
// exited; the edge then ended it.
type leak struct {
	via      string // how the tree was known: cgroup or subreaper
	pids     []int
	commands []string
}

// maxLeakListed bounds the pids and commands a tool_leak record lists;
// its count is all of them.
const maxLeakListed = 32

func toolLeak(id string, l *leak) *llmwire.Event {
	var pids []string
	for _, p := range l.pids[:min(len(l.pids), maxLeakListed)] {
		pids = append(pids, strconv.Itoa(p))
	}
	return llmwire.Ev("tool_leak", llmwire.S("call", id), llmwire.I("count", int64(len(l.pids))), llmwire.L("pids", pids),
		llmwire.L("commands", l.commands[:min(len(l.commands), maxLeakListed)]), llmwire.S("by", "edge"), llmwire.S("via", l.via))
}
