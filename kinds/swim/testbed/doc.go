// Package testbed runs a SWIM scenario's peers as real daemons on a real
// kernel network and records the run as a bundle: ground truth that
// detsim's network model did not write (docs/testbed.md).
//
// Each peer is a process (kinds/swim/cmd/swimd, or bench's memberlistd: unmodified
// hashicorp/memberlist) in a network namespace of its own, joined to one
// router namespace by a veth pair. The scenario's links are realised by
// the kernel and by a delay line that shares no code and no random stream
// with package network:
//
//   - MTU and IP fragmentation: the veth's and each route's MTU; the
//     sender's kernel fragments, the receiver's reassembles;
//   - bandwidth and the send buffer: an HTB class per directed edge, its
//     leaf a byte-limited FIFO, on the router's way into the delay line;
//   - latency and jitter: the delay line, a TUN device in the router
//     namespace read by this process, which holds each packet for a delay
//     drawn from the operating system's randomness and logs every draw;
//   - loss: nftables `numgen random` in a netdev ingress hook of the
//     receiver's namespace, per packet and so per fragment;
//   - partitions and loss bursts: the same chains, rewritten at the
//     mutations' times; PeerKill, PeerResurrect and PeerPause: the
//     process stopped, started again, or sent SIGSTOP and SIGCONT.
//
// Nothing outside the run's own namespaces is touched: every name carries
// the run's prefix (kinds/swim/testbed/tbnet), everything is removed at exit, and a
// later run removes what a killed one left: only namespaces the dead
// run's record names and that carry its marker, never one by its name
// alone (docs/testbed.md, "Nothing outside the run is touched"). The package is outside the
// determinism fence by design: it reads the clock, the operating system's
// randomness and the kernel.
package testbed
