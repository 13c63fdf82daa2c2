package rafthost

// The one exception to the determinism fence (docs/decisions.md, "etcd
// raft's election draws"; internal/detlint's Exemptions).
//
// etcd raft draws each randomized election timeout from crypto/rand,
// through a package-level lockedRand (raft.go,
// resetRandomizedElectionTimeout: `rand.Int(rand.Reader, …)`, moved off
// math/rand by etcd-io/raft#50 so emulated servers stop tying
// elections). An unchanged RawNode is therefore not reproducible. But
// rand.Int reads the package variable crypto/rand.Reader at every call,
// so this file replaces that variable, once, with a Reader that serves
// the draws of the raft host being stepped from that host's own
// ("host", id, "kind…") → "election" substream, and reads the operating
// system's source for everyone else.
//
// "The host being stepped" is made exact by a lock held across every
// call into a RawNode (host.locked): one raft host in the process is
// inside etcd's code at a time, and current names it. A read comes from
// that host's election draw only if the reading goroutine is inside
// host.locked — the lock's holder; any other goroutine (a sweep worker
// between raft calls, a TLS handshake, a key being made) finds no such
// frame on its stack and gets fresh operating-system bytes, so keys and
// ids elsewhere stay secure, and two runs stepped concurrently each
// consume only their own draws.

import (
	"crypto/rand"
	"encoding/binary"
	"io"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
)

var (
	// osEntropy is crypto/rand.Reader as the process had it.
	osEntropy io.Reader
	// stepping is held across every call into a RawNode.
	stepping sync.Mutex
	// current is the host whose raft call holds stepping, nil when none.
	current atomic.Pointer[host]
	// lockedName is host.locked's name as runtime frames spell it.
	lockedName string
)

// init installs the Reader before main, when no goroutine can be
// reading crypto/rand.Reader.
func init() {
	osEntropy = rand.Reader
	rand.Reader = entropy{}
	lockedName = runtime.FuncForPC(reflect.ValueOf((*host).locked).Pointer()).Name()
}

// entropy is the installed crypto/rand.Reader.
type entropy struct{}

func (entropy) Read(p []byte) (int, error) {
	h := current.Load()
	if h == nil || !inLockedCall() {
		return osEntropy.Read(p)
	}
	// Eight bytes a draw, little-endian: a draw's bytes are the same on
	// every architecture.
	var b [8]byte
	for i := 0; i < len(p); i += 8 {
		binary.LittleEndian.PutUint64(b[:], h.elect.Uint64())
		copy(p[i:], b[:])
	}
	return len(p), nil
}

// inLockedCall says whether the calling goroutine is inside host.locked,
// and so holds stepping.
func inLockedCall() bool {
	var pcs [64]uintptr
	for skip := 3; ; skip += len(pcs) {
		n := runtime.Callers(skip, pcs[:])
		frames := runtime.CallersFrames(pcs[:n])
		for {
			f, more := frames.Next()
			if f.Function == lockedName {
				return true
			}
			if !more {
				break
			}
		}
		if n < len(pcs) {
			return false
		}
	}
}

// enter makes h the host being stepped; leave ends it.
func enter(h *host) {
	stepping.Lock()
	current.Store(h)
}

func leave() {
	current.Store(nil)
	stepping.Unlock()
}
