package guard

import (
	"encoding/binary"
	"net"
	"syscall"
)

// socketUID asks the kernel (sock_diag netlink, one exact lookup) who
// owns the TCP socket whose local end is src and remote end is dst: for
// a connection a listener accepted on loopback, src is the client's
// address and dst the listener's, so the answer is the connecting user.
// The lookup costs one netlink round trip, whatever the number of
// sockets, where reading /proc/net/tcp would cost a line per socket.
func socketUID(src, dst *net.TCPAddr) (uint32, bool) {
	family := byte(syscall.AF_INET)
	s4, d4 := src.IP.To4(), dst.IP.To4()
	if s4 == nil || d4 == nil {
		family = syscall.AF_INET6
	}
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, syscall.NETLINK_INET_DIAG)
	if err != nil {
		return 0, false
	}
	defer syscall.Close(fd)
	tv := syscall.Timeval{Usec: 200_000} // the kernel answers at once; never hang an accept loop on it
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_RCVTIMEO, &tv)

	// struct nlmsghdr (16) + struct inet_diag_req_v2 (56): family,
	// protocol, ext, pad, states, then inet_diag_sockid: sport, dport
	// (big-endian), src[16], dst[16], interface, cookie[2].
	const sockDiagByFamily = 20
	req := make([]byte, 72)
	binary.LittleEndian.PutUint32(req[0:], 72)
	binary.LittleEndian.PutUint16(req[4:], sockDiagByFamily)
	binary.LittleEndian.PutUint16(req[6:], syscall.NLM_F_REQUEST)
	binary.LittleEndian.PutUint32(req[8:], 1)
	req[16], req[17] = family, syscall.IPPROTO_TCP
	binary.LittleEndian.PutUint32(req[20:], 0xffffffff) // every state
	id := req[24:]
	binary.BigEndian.PutUint16(id[0:], uint16(src.Port))
	binary.BigEndian.PutUint16(id[2:], uint16(dst.Port))
	if family == syscall.AF_INET {
		copy(id[4:], s4)
		copy(id[20:], d4)
	} else {
		copy(id[4:], src.IP.To16())
		copy(id[20:], dst.IP.To16())
	}
	binary.LittleEndian.PutUint32(id[40:], 0xffffffff) // INET_DIAG_NOCOOKIE: match by the addresses
	binary.LittleEndian.PutUint32(id[44:], 0xffffffff)
	if err := syscall.Sendto(fd, req, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return 0, false
	}
	buf := make([]byte, 4096)
	n, _, err := syscall.Recvfrom(fd, buf, 0)
	// The answer: struct nlmsghdr, then struct inet_diag_msg, whose uid
	// is after family..retrans (4), the sockid (48) and expires, rqueue,
	// wqueue (12).
	if err != nil || n < 16+72 || binary.LittleEndian.Uint16(buf[4:]) != sockDiagByFamily {
		return 0, false
	}
	return binary.LittleEndian.Uint32(buf[16+64:]), true
}
