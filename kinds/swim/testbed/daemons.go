package testbed

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/detsim/detsim/internal/daemon"
	"github.com/detsim/detsim/kinds/swim/testbed/tbnet"
)

// Port is every daemon's UDP (and, for memberlist, TCP) port.
const Port = 7946

// daemons runs the peers' processes, each inside its namespace.
type daemons struct {
	r     *run
	kids  []*daemon.Child
	lives []int
}

func (d *daemons) addr(i int) netip.AddrPort { return netip.AddrPortFrom(tbnet.PeerAddr(i), Port) }

// writeKindConfigs writes each peer's kind_config as the TOML file its
// daemon reads (--kind-config), and for swimd the run's cluster key: a
// fresh random one, in a 0600 file in the run's work directory (swimd
// refuses to run without one).
func (d *daemons) writeKindConfigs() error {
	if d.r.plan.Impl == ImplSwimd {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return fmt.Errorf("testbed: making the run's cluster key: %w", err)
		}
		if err := os.WriteFile(d.keyPath(), []byte(hex.EncodeToString(key)), 0o600); err != nil {
			return err
		}
	}
	for i, peer := range d.r.plan.Scenario.Peers {
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(peer.KindConfig); err != nil {
			return fmt.Errorf("testbed: encoding %s's kind_config: %w", peer.ID, err)
		}
		if err := os.WriteFile(d.kindConfigPath(i), buf.Bytes(), 0o600); err != nil {
			return err
		}
	}
	return nil
}

func (d *daemons) keyPath() string { return filepath.Join(d.r.work, "cluster.key") }

func (d *daemons) kindConfigPath(i int) string {
	return filepath.Join(d.r.work, "kind-"+d.r.plan.IDs[i]+".toml")
}

// start begins peer i's next life as a process in its namespace, in
// initial state state ("member" or "joining"). It opens as live's
// procs.start does, alike in shape: the address book and the arguments
// are each runtime's own.
func (d *daemons) start(i int, state string) error {
	r := d.r
	p := r.plan
	life := d.lives[i]
	d.lives[i]++
	id := p.IDs[i]
	var book []string
	for j, other := range p.IDs {
		book = append(book, other+"="+d.addr(j).String())
	}
	events := r.spoolPath(fmt.Sprintf("peer-%s-life%d", id, life))
	snapDir := filepath.Join(r.work, fmt.Sprintf("snap-%s-%d", id, life))
	remaining := time.Duration(r.end-r.clock()) + 10*time.Second
	args := []string{
		"--id", id, "--bind", d.addr(i).String(), "--peers", strings.Join(book, ","),
		"--netns", r.net.Peers[i],
		"--state", state, "--kind-config", d.kindConfigPath(i),
		"--events", events, "--snapshot-dir", snapDir,
		"--start-unix-ns", strconv.FormatInt(r.epoch.UnixNano(), 10),
		"--duration", min(remaining, time.Hour).Round(time.Millisecond).String(),
	}
	if p.Impl == ImplSwimd {
		// The protocol's own draws (probe order, jitter of its timers)
		// come from a seed of the operating system's, recorded in the
		// manifest: never the scenario's, which the simulator draws from.
		args = append(args,
			"--tick", time.Duration(r.tickPeriod(i)).String(),
			"--seed", strconv.FormatUint(r.daemonSeed, 10), "--life", strconv.Itoa(life),
			"--cluster-key-file", d.keyPath())
	}
	argv := append(append([]string{"netns", "exec", r.net.Peers[i], r.cfg.Daemon}, r.cfg.DaemonArgs...), args...)
	cmd := exec.Command("ip", argv...)
	// ip execs the daemon in place, so the daemon is this child: if this
	// process dies, the kernel kills it, and a later run sweeps the rest.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	c, err := daemon.Start(cmd, id, snapDir)
	if err != nil {
		return fmt.Errorf("testbed: %w", err)
	}
	r.sources = append(r.sources, events)
	d.kids[i] = c
	return nil
}

// stop ends peer i's life: SIGTERM, and SIGKILL if it does not go.
func (d *daemons) stop(i int) {
	if c := d.kids[i]; c != nil {
		d.kids[i] = nil
		c.Stop()
	}
}

// pause stops or resumes peer i's process (SIGSTOP, SIGCONT).
func (d *daemons) pause(i int, stop bool) error {
	c := d.kids[i]
	if c == nil {
		return nil
	}
	sig := syscall.SIGCONT
	if stop {
		sig = syscall.SIGSTOP
	}
	return c.Signal(sig)
}

func (d *daemons) running(i int) bool { return d.kids[i] != nil }

// crashed returns a peer whose process exited without being stopped,
// with how it ended, or -1.
func (d *daemons) crashed() (int, string) {
	for i, c := range d.kids {
		if c == nil {
			continue
		}
		select {
		case <-c.Exited():
			if !c.Stopped() {
				return i, fmt.Sprintf("%s (%s)", c.ExitState(), c.Tail())
			}
		default:
		}
	}
	return -1, ""
}

func (d *daemons) close() {
	for i := range d.kids {
		d.stop(i)
	}
}
