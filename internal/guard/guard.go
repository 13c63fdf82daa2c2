// Package guard is what every detsim listener (edge, provider-serve)
// puts in front of its handler so that it is safe to leave running
// (docs/security.md): a per-run key in a file only its owner can read,
// required on every request; the Host, Origin and content type a web
// page in the developer's browser would send, refused; and connections
// capped per client, the local user that opened them, so that no client
// can starve another.
//
// It is outside the determinism fence by design: it reads the operating
// system's randomness for keys and ids, and the kernel's socket table.
package guard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/detsim/detsim/internal/scratch"
)

// KeyPrefix starts every key detsim makes, so a key in a log or a shell
// history says whose it is.
const KeyPrefix = "dsk_"

// NewKey returns a fresh key: 32 bytes from the operating system's
// randomness, hex-encoded after KeyPrefix.
func NewKey() string {
	var b [32]byte
	rand.Read(b[:]) // never fails on Linux (crypto/rand's contract)
	return KeyPrefix + hex.EncodeToString(b[:])
}

// NewID returns an unguessable name for a session: 128 random bits in
// lower-case base32, which is also a valid path segment.
func NewID() string {
	var b [16]byte
	rand.Read(b[:])
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// KeyFile is a key written to a file that only the user who started
// the listener can read (0600), for that user's clients to read.
type KeyFile struct {
	Key  string
	Path string
	dir  *scratch.Entry // the scratch directory holding it, when it was made for it
}

// WriteKeyFile writes a fresh key to path, which must not exist: a key
// file left by a killed run is never reused, since whoever read it then
// could still hold it. An empty path makes a directory of its own under
// os.TempDir() named for the command (prefix), swept by the next run of
// any command that writes a key there once this process is gone.
func WriteKeyFile(path, prefix string) (*KeyFile, error) {
	k := &KeyFile{Key: NewKey(), Path: path}
	if path == "" {
		_ = scratch.Sweep(os.TempDir(), prefix, nil)
		d, err := scratch.Dir(os.TempDir(), prefix)
		if err != nil {
			return nil, fmt.Errorf("a directory for the key: %v", err)
		}
		k.dir, k.Path = d, filepath.Join(d.Path, "key")
	}
	f, err := os.OpenFile(k.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("key file %s exists: a key is never reused (a killed run's file may still be read by whoever read it then); remove it or name another", k.Path)
	}
	if err != nil {
		k.Remove()
		return nil, fmt.Errorf("key file: %v", err)
	}
	_, err = f.WriteString(k.Key + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		k.Remove()
		return nil, fmt.Errorf("key file %s: %v", k.Path, err)
	}
	return k, nil
}

// Remove deletes the key file if it still holds this key (a file
// someone put there since is not ours), and its directory when it was
// made for it.
func (k *KeyFile) Remove() {
	if k == nil {
		return
	}
	if b, err := os.ReadFile(k.Path); err == nil && strings.TrimSpace(string(b)) == k.Key {
		os.Remove(k.Path)
	}
	if k.dir != nil {
		k.dir.Remove()
	}
}

// Presented is the credential a request carries: the x-api-key header
// (the Anthropic SDKs), else an Authorization bearer token (the OpenAI
// SDKs and most HTTP clients).
func Presented(r *http.Request) string {
	if k := r.Header.Get("x-api-key"); k != "" {
		return k
	}
	if t, ok := strings.CutPrefix(r.Header.Get("authorization"), "Bearer "); ok {
		return strings.TrimSpace(t)
	}
	return ""
}

// Equal compares a presented credential with a key in constant time.
func Equal(presented, key string) bool {
	return key != "" && subtle.ConstantTimeCompare([]byte(presented), []byte(key)) == 1
}

// Refusal is a request the guard refuses: the status to answer and
// what was wrong, said to the client.
type Refusal struct {
	Status int
	Type   string // the API error type: authentication_error, permission_error, ...
	Reason string
}

// CheckRequest refuses a request no detsim client sends and a web page
// can: a Host that is not this listener's loopback address (DNS
// rebinding), an Origin header from anywhere else (a cross-site fetch),
// and a body that is not JSON (the "simple requests" a browser sends
// cross-site without asking first). The listener's address is the one
// net/http puts in the request's context; without it (a request made
// in a test) any loopback Host passes. It does not look at credentials:
// that is the caller's, since which key opens which route is the
// caller's to say.
func CheckRequest(r *http.Request) *Refusal {
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !hostIsLocal(r.Host, local) {
		return &Refusal{http.StatusMisdirectedRequest, "permission_error",
			fmt.Sprintf("Host %q is not this listener (%s): refused, as a page reaching it through a name that resolves here would be", r.Host, local)}
	}
	if o := r.Header.Get("origin"); o != "" && o != "http://"+r.Host {
		return &Refusal{http.StatusForbidden, "permission_error",
			fmt.Sprintf("Origin %q: a cross-origin request is refused (a web page cannot use this listener)", o)}
	}
	if r.Header.Get("sec-fetch-site") == "cross-site" {
		return &Refusal{http.StatusForbidden, "permission_error", "Sec-Fetch-Site cross-site: refused (a web page cannot use this listener)"}
	}
	ct := r.Header.Get("content-type")
	hasBody := r.ContentLength != 0 || len(r.TransferEncoding) > 0
	if ct != "" || hasBody {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || mt != "application/json" {
			return &Refusal{http.StatusUnsupportedMediaType, "invalid_request_error",
				fmt.Sprintf("Content-Type %q: only application/json is taken", ct)}
		}
	}
	return nil
}

// Unauthorized is the 401 for a request that presented no key, or
// the wrong one, saying which.
func Unauthorized(r *http.Request) *Refusal {
	what := "no key: send the key from the listener's key file as x-api-key or Authorization: Bearer"
	if Presented(r) != "" {
		what = "the key presented is not this listener's (each run makes a new one; read its key file again)"
	}
	return &Refusal{http.StatusUnauthorized, "authentication_error", what}
}

// hostIsLocal reports whether a Host header names the listener local
// by a loopback name (localhost, 127.0.0.1, [::1]) and its port.
func hostIsLocal(host string, local net.Addr) bool {
	h, port, err := net.SplitHostPort(host)
	if err != nil {
		return false
	}
	if t, ok := local.(*net.TCPAddr); ok && port != fmt.Sprint(t.Port) {
		return false
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
