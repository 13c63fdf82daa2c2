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
// so this file replaces that variable with a Reader that serves the
// draws of the raft host being stepped from that host's own
// ("host", id, "kind…") → "election" substream, and reads the operating
// system's source for everyone else.
//
// It is installed when the first raft host is created (install, from
// New), not at init: a process that never runs a raft host keeps
// crypto/rand as Go made it. The write races with nothing in detsim:
// its commands that read crypto/rand on other goroutines (edge's guard,
// live, testbed) create no raft host (docs/raft.md, "Determinism: etcd's election draws").
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
//
// The hook cannot fail quietly. A read by etcd's raft code, or on a
// goroutine inside a raft host's method, that is not inside host.locked
// would take the operating system's bytes and make the run
// irreproducible without a word: it is refused (errEntropy, on which
// etcd's draw panics), noted against the reading goroutine, and the
// host's call then panics with a determinism failure (stepCheck) —
// never a raft_panic record, always a failed run: the CLI exits 3, a
// sweep or a shrink reports the run as an error. So is a call that
// finds crypto/rand.Reader no longer the hook.

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

var (
	// osEntropy is crypto/rand.Reader as the process had it.
	osEntropy io.Reader
	// hook is the installed Reader.
	hook io.Reader = entropy{}
	// installOnce installs it, at the first raft host's New.
	installOnce sync.Once
	// stepping is held across every call into a RawNode.
	stepping sync.Mutex
	// current is the host whose raft call holds stepping, nil when none.
	current atomic.Pointer[host]
	// lockedName is host.locked's name as runtime frames spell it;
	// hostPrefix begins the name of every method of host.
	lockedName, hostPrefix string

	// refused holds, by goroutine id, what read crypto/rand outside
	// host.locked on that goroutine, not yet reported; refusals counts
	// them, so a call that finds none pays one atomic load.
	refused    sync.Map
	refusals   atomic.Int64
	errEntropy = errors.New("rafthost: crypto/rand read outside host.locked while a raft host is stepped")
)

// raftPrefix begins the name of every function of etcd's raft package.
const raftPrefix = "go.etcd.io/raft/v3."

// install replaces crypto/rand.Reader with the hook, once, before the
// first raft host's first call.
func install() {
	installOnce.Do(func() {
		lockedName = runtime.FuncForPC(reflect.ValueOf((*host).locked).Pointer()).Name()
		hostPrefix = strings.TrimSuffix(lockedName, "locked")
		osEntropy = rand.Reader
		rand.Reader = hook
	})
}

// entropy is the installed crypto/rand.Reader.
type entropy struct{}

func (entropy) Read(p []byte) (int, error) {
	locked, stepped, drawer := where()
	h := current.Load()
	switch {
	case locked && h != nil:
		// Eight bytes a draw, little-endian: a draw's bytes are the same
		// on every architecture.
		var b [8]byte
		for i := 0; i < len(p); i += 8 {
			binary.LittleEndian.PutUint64(b[:], h.elect.Uint64())
			copy(p[i:], b[:])
		}
		return len(p), nil
	case stepped:
		if drawer == "" {
			drawer = "the adapter"
		}
		refused.Store(goroutineID(), drawer)
		refusals.Add(1)
		return 0, errEntropy
	}
	return osEntropy.Read(p)
}

// where walks the reading goroutine's stack: whether it is inside
// host.locked (and so holds stepping); whether it is stepping a raft
// host at all (inside a method of host, or etcd's raft code); and the
// innermost etcd raft function on it, which names a refused read.
func where() (locked, stepped bool, drawer string) {
	var pcs [64]uintptr
	for skip := 3; ; skip += len(pcs) {
		n := runtime.Callers(skip, pcs[:])
		frames := runtime.CallersFrames(pcs[:n])
		for {
			f, more := frames.Next()
			switch {
			case f.Function == lockedName:
				return true, true, drawer
			case strings.HasPrefix(f.Function, raftPrefix):
				if drawer == "" {
					drawer = f.Function
				}
				stepped = true
			case strings.HasPrefix(f.Function, hostPrefix):
				stepped = true
			}
			if !more {
				break
			}
		}
		if n < len(pcs) {
			return false, stepped, drawer
		}
	}
}

// takeRefused returns what read crypto/rand outside host.locked on this
// goroutine since the last look ("" for nothing), and forgets it.
func takeRefused() string {
	if refusals.Load() == 0 {
		return ""
	}
	v, ok := refused.LoadAndDelete(goroutineID())
	if !ok {
		return ""
	}
	refusals.Add(-1)
	return v.(string)
}

// goroutineID is the calling goroutine's id, from its stack's header
// ("goroutine 17 [running]:"); only a refusal pays for it.
func goroutineID() uint64 {
	var b [64]byte
	n := runtime.Stack(b[:], false)
	f := strings.Fields(string(b[:n]))
	if len(f) < 2 {
		return 0
	}
	id, _ := strconv.ParseUint(f[1], 10, 64)
	return id
}

// stepCheck runs after each host call and after a panic inside one: a
// read refused during it, or crypto/rand.Reader no longer the hook, is a
// determinism failure, and the run stops with it.
func (h *host) stepCheck() {
	if d := takeRefused(); d != "" {
		panic(fmt.Sprintf("rafthost: determinism failure: %s read crypto/rand outside host.locked while %s was stepped; the run cannot be reproduced (docs/raft.md, \"Determinism: etcd's election draws\")", d, h.id))
	}
	if _, ok := rand.Reader.(entropy); !ok {
		panic(fmt.Sprintf("rafthost: determinism failure: crypto/rand.Reader was replaced (by a %T) after the election-draw hook was installed; %s's draws would not come from its seed (docs/raft.md, \"Determinism: etcd's election draws\")", rand.Reader, h.id))
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
