package guard

import (
	"net"
	"testing"
)

// BenchmarkCheckRequest is what the guard adds to every request: the
// Host, Origin and content-type checks and the key's comparison.
func BenchmarkCheckRequest(b *testing.B) {
	key := NewKey()
	r := localRequest("/v1/messages", "127.0.0.1:8788", "{}", map[string]string{"content-type": "application/json", "x-api-key": key})
	for b.Loop() {
		if CheckRequest(r) != nil || !Equal(Presented(r), key) {
			b.Fatal("refused")
		}
	}
}

// BenchmarkClient is what the guard adds to every accepted connection:
// one sock_diag lookup of the connecting user.
func BenchmarkClient(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		if Client(s) == "unknown" {
			b.Fatal("no user")
		}
	}
}
