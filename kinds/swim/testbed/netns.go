package testbed

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/detsim/detsim/kinds/swim/testbed/tbnet"
)

// tunName is the delay line's TUN device in the router namespace.
const tunName = "dl0"

// divertTable is the router's routing table that sends every forwarded
// packet into the delay line.
const divertTable = "100"

// Net is one run's kernel network: a namespace per peer and a router
// namespace, joined by veth pairs, with the plan's MTUs, HTB classes and
// nftables chains, and the delay line's TUN device. Close removes all of
// it.
type Net struct {
	plan   *Plan
	lock   *runLock
	Router string   // the router namespace
	Peers  []string // peer i's namespace
	TUN    *os.File
	// Swept is what this run's sweep removed first, and left.
	Swept Swept
	// made are the namespaces this run created: all Close removes.
	made []string

	mu     sync.Mutex
	closed bool
}

// nsName is the namespace of role in run id.
func nsName(id, role string) string { return tbnet.Prefix + id + "-" + role }

// Build sweeps what killed runs left, then makes the plan's network.
// Whatever it made is removed again if it fails.
func Build(p *Plan) (*Net, error) {
	if err := Preflight(); err != nil {
		return nil, err
	}
	roles := []string{"r"}
	for i := range p.IDs {
		roles = append(roles, "p"+strconv.Itoa(i))
	}
	lock, swept, err := claim(roles)
	if err != nil {
		return nil, err
	}
	n := &Net{plan: p, lock: lock, Router: lock.rec.Namespaces[0], Peers: lock.rec.Namespaces[1:], Swept: swept}
	if err := n.build(); err != nil {
		n.Close()
		return nil, fmt.Errorf("testbed: building the network: %w", err)
	}
	return n, nil
}

func (n *Net) build() error {
	p := n.plan
	// Namespaces, each marked as it is made (claim recorded them), and
	// the veth pairs made straight inside them: no name is ever created
	// in this process's own namespace.
	for _, ns := range n.lock.rec.Namespaces {
		made, err := n.lock.create(ns)
		if made {
			n.made = append(n.made, ns)
		}
		if err != nil {
			return err
		}
	}
	var lines []string
	for i, ns := range n.Peers {
		lines = append(lines, fmt.Sprintf("link add p%d netns %s type veth peer name eth0 netns %s", i, n.Router, ns))
	}
	if err := batch("ip", "", lines); err != nil {
		return err
	}
	mtu := strconv.FormatInt(p.VethMTU, 10)
	for i, ns := range n.Peers {
		lines := []string{
			"link set lo up",
			fmt.Sprintf("addr add %s/24 dev eth0", tbnet.PeerAddr(i)),
			"link set eth0 mtu " + mtu + " up",
		}
		// One route per edge this peer sends on, at the edge's MTU: the
		// sender's kernel fragments there. No edge, no route: a send on
		// it fails at once (ENETUNREACH), as a NoRoute drop does.
		for _, e := range p.Edges {
			if e.From == i {
				lines = append(lines, fmt.Sprintf("route add %s/32 via %s mtu lock %d", tbnet.PeerAddr(e.To), tbnet.RouterAddr(i), e.MTUBytes))
			}
		}
		if err := batch("ip", ns, lines); err != nil {
			return err
		}
		if err := command(n.nftTable(i), "ip", "netns", "exec", ns, "nft", "-f", "-"); err != nil {
			return err
		}
	}

	// The router forwards, never second-guesses a source address, and
	// sends every forwarded packet into the delay line: a packet coming
	// out of the TUN device is routed normally, any other goes to it.
	if err := setSysctls(n.Router, [][2]string{
		{"ipv4/ip_forward", "1"},
		{"ipv4/conf/all/rp_filter", "0"},
		{"ipv4/conf/default/rp_filter", "0"},
		{"ipv4/conf/all/send_redirects", "0"},
		{"ipv4/conf/default/send_redirects", "0"},
	}); err != nil {
		return err
	}
	tun, err := openTUN(n.Router, tunName)
	if err != nil {
		return err
	}
	n.TUN = tun
	lines = []string{"link set lo up", "link set " + tunName + " mtu 65535 up"}
	for i := range n.Peers {
		lines = append(lines,
			fmt.Sprintf("addr add %s/24 dev p%d", tbnet.RouterAddr(i), i),
			fmt.Sprintf("link set p%d mtu %s up", i, mtu))
	}
	lines = append(lines,
		"rule add iif "+tunName+" lookup main pref 100",
		"rule add lookup "+divertTable+" pref 200",
		"route add default dev "+tunName+" table "+divertTable)
	if err := batch("ip", n.Router, lines); err != nil {
		return err
	}
	if err := setSysctls(n.Router, [][2]string{{"ipv4/conf/" + tunName + "/rp_filter", "0"}}); err != nil {
		return err
	}
	return batch("tc", n.Router, n.shaping())
}

// shaping is the router's tc batch: HTB on the way into the delay line,
// one class per shaped edge at its rate, whose leaf is a FIFO of the
// edge's queue bytes; a packet of no shaped edge passes unshaped, and a
// serialising wire (burst_bytes 0) is the delay line's to pace.
// Shaping before the delay puts serialisation before latency, as the
// network model does, and a full queue drops the packet (as a
// bottleneck router does) rather than blocking the sender's socket.
func (n *Net) shaping() []string {
	lines := []string{"qdisc add dev " + tunName + " root handle 1: htb default 0"}
	for k, e := range n.plan.Edges {
		if e.RateBytes == 0 || e.Serialised() {
			continue
		}
		class := fmt.Sprintf("1:%x", k+1)
		// burst and cburst are the scenario's burst_bytes: the depth of
		// the token bucket the model shapes the edge with (step 4).
		lines = append(lines,
			fmt.Sprintf("class add dev %s parent 1: classid %s htb rate %dbit ceil %dbit burst %d cburst %d quantum %d", tunName, class, e.RateBytes*8, e.RateBytes*8, e.BurstBytes, e.BurstBytes, max(1514, n.plan.VethMTU+64)),
			fmt.Sprintf("qdisc add dev %s parent %s handle %x: bfifo limit %d", tunName, class, k+2, e.QueueBytes),
			fmt.Sprintf("filter add dev %s parent 1: protocol ip prio 1 u32 match ip src %s/32 match ip dst %s/32 flowid %s", tunName, tbnet.PeerAddr(e.From), tbnet.PeerAddr(e.To), class))
	}
	return lines
}

// nftTable is peer i's nftables ruleset: a netdev ingress chain on its
// veth that sends each sender's packets to a chain of their own, where
// loss and partitions are rules (chainRules).
func (n *Net) nftTable(i int) string {
	var b strings.Builder
	b.WriteString("table netdev detsim {\n")
	var jumps []string
	for _, e := range n.plan.Edges {
		if e.To != i {
			continue
		}
		fmt.Fprintf(&b, "  chain from_%d {\n%s  }\n", e.From, indent(chainRules(false, e.LossPPM)))
		jumps = append(jumps, fmt.Sprintf("    ip saddr %s jump from_%d\n", tbnet.PeerAddr(e.From), e.From))
	}
	b.WriteString("  chain in {\n    type filter hook ingress device \"eth0\" priority 0; policy accept;\n")
	for _, j := range jumps {
		b.WriteString(j)
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

// chainRules is the content of one edge's chain: everything dropped
// while a partition cuts the edge, else each packet dropped with
// probability ppm/10⁶ (numgen's draw is the kernel's own randomness).
func chainRules(cut bool, ppm int64) string {
	switch {
	case cut:
		return "drop\n"
	case ppm > 0:
		return fmt.Sprintf("numgen random mod 1000000 < %d drop\n", ppm)
	}
	return ""
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if line != "" {
			b.WriteString("    " + line + "\n")
		}
	}
	return b.String()
}

// SetIngress rewrites edge from→to's chain in to's namespace, atomically
// (one nft transaction): cut drops everything, else loss at ppm.
func (n *Net) SetIngress(from, to int, cut bool, ppm int64) error {
	script := fmt.Sprintf("flush chain netdev detsim from_%d\n", from)
	if r := chainRules(cut, ppm); r != "" {
		script += fmt.Sprintf("add rule netdev detsim from_%d %s", from, r)
	}
	return command(script, "ip", "netns", "exec", n.Peers[to], "nft", "-f", "-")
}

// Close removes the namespaces the run made and everything in them
// (killing any process still inside), closes the TUN device and releases
// the run's lock. It is safe to call more than once.
func (n *Net) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	if n.TUN != nil {
		n.TUN.Close()
	}
	var names []string
	for _, ns := range n.made {
		if _, err := os.Stat(netnsDir + "/" + ns); err == nil {
			names = append(names, ns)
		}
	}
	err := removeNamespaces(names)
	n.lock.release(err != nil)
	return err
}
