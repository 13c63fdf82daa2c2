package live

import (
	"fmt"
	"net/netip"

	"github.com/detsim/detsim/internal/spool"
	"github.com/detsim/detsim/kinds/swim/live/node"
	"github.com/detsim/detsim/kinds/swim/swim"
	"github.com/detsim/detsim/rng"
)

var netipZero netip.AddrPort

// inProcess runs every peer as a node.Node in this process.
type inProcess struct {
	r     *run
	slots []*slot
	spare func() error // closes the shaper's spare socket
}

type slot struct {
	addr  netip.AddrPort // fixed for the run: a restart rebinds it
	ticks *rng.Stream    // first-tick offsets, one draw per life (as the engine)
	lives int
	node  *node.Node
	last  *swim.Node // the stopped life's state machine, for a resume
	out   *spool.Sink
}

func newInProcess(r *run) (*inProcess, error) {
	p := &inProcess{r: r}
	for i, id := range r.ids {
		// Reserve a port per peer for the whole run: bind one now, keep
		// its number, and rebind it at each start.
		conn, err := node.ListenLoopback("127.0.0.1:0")
		if err != nil {
			p.close()
			return nil, fmt.Errorf("live: peer %s: %w", id, err)
		}
		s := &slot{addr: node.AddrOf(conn), ticks: r.root.Tick(id)}
		conn.Close()
		if s.out, err = spool.NewSink(r.spoolPath("peer-"+id), &r.records); err != nil {
			p.close()
			return nil, err
		}
		r.sources = append(r.sources, s.out.Path())
		p.slots = append(p.slots, s)
		_ = i
	}
	// The shaper's spare socket: deliveries from a peer that has since
	// been killed still arrive (the network delivers what was in flight).
	spare, err := node.ListenLoopback("127.0.0.1:0")
	if err != nil {
		p.close()
		return nil, err
	}
	r.shaper.spare = func(b []byte, to netip.AddrPort) error {
		_, err := spare.WriteToUDPAddrPort(b, to)
		return err
	}
	p.spare = spare.Close
	return p, nil
}

func (p *inProcess) start(i int, state string, resume bool) error {
	r, s := p.r, p.slots[i]
	conn, err := node.ListenLoopback(s.addr.String())
	if err != nil {
		return fmt.Errorf("live: restarting peer %s on its port: %w", r.ids[i], err)
	}
	cfg := node.Config{
		ID: r.ids[i], Peers: r.ids, Conn: conn, Key: r.cfg.ClusterKey, Clock: r.clock,
		TickPeriodNs: r.tickPeriod(i), Out: s.out.Write,
	}
	period := cfg.TickPeriodNs
	cfg.FirstTickNs = r.clock() + int64(s.ticks.Below(uint64(period)))
	if resume && s.last != nil {
		cfg.Resume = s.last
	} else {
		cfg.Swim, cfg.Start, cfg.Rand = r.newSwim(i, state, s.lives)
		s.lives++
	}
	from := i
	cfg.Route = func(to string, datagram []byte, codecLen int, now int64, id uint64) string {
		ti, ok := r.index[to]
		if !ok {
			return "no_route"
		}
		return r.shaper.send(from, ti, datagram, codecLen, id)
	}
	cfg.ReceivedID = func(datagram []byte) uint64 { return r.shaper.receivedID(from, datagram) }
	n, err := node.New(cfg)
	if err != nil {
		conn.Close()
		return err
	}
	s.node = n
	r.shaper.setRunning(i, true, s.addr, n.WriteTo)
	n.Start()
	return nil
}

func (p *inProcess) stop(i int) {
	s := p.slots[i]
	if s.node == nil {
		return
	}
	s.node.Stop()
	s.last, s.node = s.node.State(), nil
}

func (p *inProcess) snapshot(i int) ([]byte, error) {
	s := p.slots[i]
	if s.node == nil {
		return nil, fmt.Errorf("live: snapshot of %s, which is not running", p.r.ids[i])
	}
	data := s.node.Snapshot()
	if data == nil {
		return nil, fmt.Errorf("live: %s stopped while taking its snapshot", p.r.ids[i])
	}
	return data, nil
}

func (p *inProcess) addr(i int) netip.AddrPort { return p.slots[i].addr }

func (p *inProcess) close() {
	for i, s := range p.slots {
		p.stop(i)
		if s.out != nil {
			s.out.Close()
		}
	}
	if p.spare != nil {
		p.spare()
		p.spare = nil
	}
}
