//go:build !linux

package edge

import (
	"os/exec"
	"syscall"
)

// procTree is one run's process tree (proctree.go): off Linux, its
// process group alone, and no leak is seen.
type procTree struct {
	via  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func startInTree(build func() *exec.Cmd) (*exec.Cmd, *procTree, error) {
	t := &procTree{via: "pgroup", cmd: build(), done: make(chan struct{})}
	t.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := t.cmd.Start(); err != nil {
		return nil, nil, err
	}
	go func() { t.err = t.cmd.Wait(); close(t.done) }()
	return t.cmd, t, nil
}

func (t *procTree) exited() <-chan struct{} { return t.done }
func (t *procTree) wait() error             { <-t.done; return t.err }
func (t *procTree) alive() []int            { return nil }
func (t *procTree) kill()                   { _ = syscall.Kill(-t.cmd.Process.Pid, syscall.SIGKILL) }
func (t *procTree) release()                {}
func commandLine(int) string                { return "" }
