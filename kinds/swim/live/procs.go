package live

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/detsim/detsim/internal/daemon"
	"github.com/detsim/detsim/kinds/swim/live/node"
	"github.com/detsim/detsim/rng"
)

// procs runs every peer as a swimd child process. A child's address book
// names, for every other peer, a proxy socket of this process (one per
// directed edge): what arrives there is the child's send on that edge,
// which the shaper holds and then writes, from its own socket, to the
// receiver's real port. The children keep their own records (--events),
// merged with the shaper's at the end.
type procs struct {
	r       *run
	bin     string
	ports   []netip.AddrPort // each peer's own port, fixed for the run
	proxies [][]*net.UDPConn // [from][to]
	ticks   []*rng.Stream
	lives   []int
	kids    []*daemon.Child
	keyFile string
	wg      sync.WaitGroup
	spare   *net.UDPConn
}

func newProcs(r *run) (peerSet, error) {
	p := &procs{r: r, bin: r.cfg.Swimd}
	if _, err := os.Stat(p.bin); err != nil {
		return nil, fmt.Errorf("live: swimd binary: %w", err)
	}
	n := len(r.ids)
	p.kids, p.lives = make([]*daemon.Child, n), make([]int, n)
	for _, id := range r.ids {
		conn, err := node.ListenLoopback("127.0.0.1:0")
		if err != nil {
			p.close()
			return nil, err
		}
		p.ports = append(p.ports, node.AddrOf(conn))
		conn.Close()
		p.ticks = append(p.ticks, r.root.Tick(id))
	}
	spare, err := node.ListenLoopback("127.0.0.1:0")
	if err != nil {
		p.close()
		return nil, err
	}
	p.spare = spare
	r.shaper.spare = func(b []byte, to netip.AddrPort) error {
		_, err := spare.WriteToUDPAddrPort(b, to)
		return err
	}
	p.proxies = make([][]*net.UDPConn, n)
	for from := range n {
		p.proxies[from] = make([]*net.UDPConn, n)
		for to := range n {
			if from == to {
				continue
			}
			conn, err := node.ListenLoopback("127.0.0.1:0")
			if err != nil {
				p.close()
				return nil, err
			}
			p.proxies[from][to] = conn
			p.wg.Add(1)
			go p.forward(from, to, conn)
		}
	}
	// The key reaches the children in a file only this user can read,
	// in the run's own temporary directory: never on their command lines,
	// which any local user can read.
	p.keyFile = filepath.Join(r.work, "cluster.key")
	if err := os.WriteFile(p.keyFile, []byte(hex.EncodeToString(r.cfg.ClusterKey)), 0o600); err != nil {
		p.close()
		return nil, err
	}
	for i := range r.ids {
		data, err := encodeKindConfig(r.sc.Peers[i].KindConfig)
		if err != nil {
			p.close()
			return nil, err
		}
		if err := os.WriteFile(p.kindConfigPath(i), data, 0o600); err != nil {
			p.close()
			return nil, err
		}
	}
	return p, nil
}

func encodeKindConfig(kv map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(kv); err != nil {
		return nil, fmt.Errorf("live: encoding kind_config: %w", err)
	}
	return buf.Bytes(), nil
}

func (p *procs) kindConfigPath(i int) string {
	return filepath.Join(p.r.work, "kind-"+p.r.ids[i]+".toml")
}

// forward hands every datagram child from sends to child to to the shaper.
func (p *procs) forward(from, to int, conn *net.UDPConn) {
	defer p.wg.Done()
	buf := make([]byte, 1<<16)
	for {
		n, _, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		// The link is charged the codec's bytes, as in the simulator; a
		// child's refused send is not reported back (UDP does not).
		p.r.shaper.send(from, to, buf[:n], max(n-node.FrameLen(p.r.ids[to]), 0), 0) // a child's ids are its own
	}
}

// start begins a life as testbed's daemons.start does, alike in shape: here
// a child process behind this run's proxies, there a daemon in its
// namespace, with different address books and arguments.
func (p *procs) start(i int, state string, _ bool) error {
	r := p.r
	life := p.lives[i]
	p.lives[i]++
	id := r.ids[i]
	var book []string
	for j, other := range r.ids {
		addr := p.ports[i]
		if j != i {
			addr = node.AddrOf(p.proxies[i][j])
		}
		book = append(book, other+"="+addr.String())
	}
	events := r.spoolPath(fmt.Sprintf("peer-%s-life%d", id, life))
	snapDir := filepath.Join(r.work, fmt.Sprintf("snap-%s-%d", id, life))
	period := r.tickPeriod(i)
	first := r.clock() + int64(p.ticks[i].Below(uint64(period)))
	remaining := time.Duration(r.sc.DurationNs-r.clock()) + 10*time.Second
	args := []string{
		"--id", id, "--bind", p.ports[i].String(), "--peers", strings.Join(book, ","),
		"--state", state, "--kind-config", p.kindConfigPath(i),
		"--events", events, "--snapshot-dir", snapDir,
		"--start-unix-ns", strconv.FormatInt(r.epoch.UnixNano(), 10),
		"--duration", min(remaining, time.Hour).String(),
		"--tick", time.Duration(period).String(),
		"--seed", strconv.FormatUint(r.sc.Seed, 10), "--life", strconv.Itoa(life),
		"--first-tick-ns", strconv.FormatInt(first, 10),
	}
	args = append(args, "--cluster-key-file", p.keyFile)
	c, err := daemon.Start(exec.Command(p.bin, append(slices.Clone(r.cfg.SwimdArgs), args...)...), id, snapDir)
	if err != nil {
		return fmt.Errorf("live: %w", err)
	}
	r.sources = append(r.sources, events)
	p.kids[i] = c
	r.shaper.setRunning(i, true, p.ports[i], nil)
	return nil
}

func (p *procs) stop(i int) {
	if c := p.kids[i]; c != nil {
		p.kids[i] = nil
		c.Stop()
	}
}

func (p *procs) snapshot(i int) ([]byte, error) {
	c := p.kids[i]
	if c == nil {
		return nil, fmt.Errorf("live: snapshot of %s, which is not running", p.r.ids[i])
	}
	data, err := c.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	return data, nil
}

func (p *procs) addr(i int) netip.AddrPort { return p.ports[i] }

func (p *procs) close() {
	for i := range p.kids {
		p.stop(i)
	}
	for _, row := range p.proxies {
		for _, c := range row {
			if c != nil {
				c.Close()
			}
		}
	}
	p.wg.Wait()
	if p.spare != nil {
		p.spare.Close()
		p.spare = nil
	}
}
