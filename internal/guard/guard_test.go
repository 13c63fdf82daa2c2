package guard

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/detsim/detsim/internal/guard/guardtest"
	"github.com/detsim/detsim/internal/realtime"
)

// localRequest is a POST of body to path, as a server listening on
// 127.0.0.1:8788 receives it: addressed to host, with header's fields.
func localRequest(path, host, body string, header map[string]string) *http.Request {
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8788}
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Host = host
	for k, v := range header {
		r.Header.Set(k, v)
	}
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(local)))
}

func TestCheckRequest_RefusesWhatAPageSends(t *testing.T) {
	for _, c := range []struct {
		name   string
		host   string
		header map[string]string
		body   string
		status int
	}{
		{"json", "127.0.0.1:8788", map[string]string{"content-type": "application/json"}, "{}", 0},
		{"json with charset", "localhost:8788", map[string]string{"content-type": "application/json; charset=utf-8"}, "{}", 0},
		{"no body no type", "[::1]:8788", nil, "", 0},
		{"same origin", "127.0.0.1:8788", map[string]string{"origin": "http://127.0.0.1:8788"}, "", 0},
		{"rebound name", "evil.example:8788", nil, "", http.StatusMisdirectedRequest},
		{"other port", "127.0.0.1:9999", nil, "", http.StatusMisdirectedRequest},
		{"foreign origin", "127.0.0.1:8788", map[string]string{"origin": "https://evil.example"}, "", http.StatusForbidden},
		{"null origin", "127.0.0.1:8788", map[string]string{"origin": "null"}, "", http.StatusForbidden},
		{"cross-site fetch", "127.0.0.1:8788", map[string]string{"sec-fetch-site": "cross-site"}, "", http.StatusForbidden},
		{"text/plain simple request", "127.0.0.1:8788", map[string]string{"content-type": "text/plain"}, "{}", http.StatusUnsupportedMediaType},
		{"form", "127.0.0.1:8788", map[string]string{"content-type": "application/x-www-form-urlencoded"}, "a=b", http.StatusUnsupportedMediaType},
		{"body without a type", "127.0.0.1:8788", nil, "{}", http.StatusUnsupportedMediaType},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := CheckRequest(localRequest("/", c.host, c.body, c.header))
			switch {
			case c.status == 0 && got != nil:
				t.Errorf("refused %d: %s", got.Status, got.Reason)
			case c.status != 0 && (got == nil || got.Status != c.status):
				t.Errorf("got %+v, want %d", got, c.status)
			case got != nil && got.Reason == "":
				t.Error("a refusal names nothing")
			}
		})
	}
}

func TestPresented_BothSDKHeaders(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("authorization", "Bearer dsk_1")
	if Presented(r) != "dsk_1" || !Equal(Presented(r), "dsk_1") || Equal("", "") || Equal("dsk_2", "dsk_1") {
		t.Error("bearer")
	}
	r.Header.Set("x-api-key", "dsk_3")
	if Presented(r) != "dsk_3" {
		t.Error("x-api-key first")
	}
}

func TestWriteKeyFile_OwnerOnlyNeverReusedAndRemoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "edge.key")
	k, err := WriteKeyFile(path, "")
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("%v %v: want 0600", info.Mode(), err)
	}
	b, _ := os.ReadFile(path)
	if strings.TrimSpace(string(b)) != k.Key || !strings.HasPrefix(k.Key, KeyPrefix) || len(k.Key) != len(KeyPrefix)+64 {
		t.Fatalf("file %q, key %q", b, k.Key)
	}
	// A killed run's file is never reused.
	if _, err := WriteKeyFile(path, ""); err == nil || !strings.Contains(err.Error(), "never reused") {
		t.Fatalf("an existing key file: %v", err)
	}
	k.Remove()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("Remove left the key file")
	}
	// A file someone put in its place is not ours to remove.
	os.WriteFile(path, []byte("theirs\n"), 0o600)
	k.Remove()
	if _, err := os.Stat(path); err != nil {
		t.Fatal("Remove took a file it did not write")
	}
}

func TestWriteKeyFile_DefaultPlaceIsItsOwnDirectory(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	k, err := WriteKeyFile("", "detsim-test-key")
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Dir(k.Path)); err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("directory %v %v: want 0700", info, err)
	}
	k.Remove()
	if _, err := os.Stat(filepath.Dir(k.Path)); !os.IsNotExist(err) {
		t.Fatal("the key's directory stayed")
	}
	a, b := NewID(), NewID()
	if a == b || len(a) != 26 {
		t.Errorf("ids %q, %q: want two different 26-letter names", a, b)
	}
}

// TestListener_AnotherUserCannotStarveThisOne: nobody holds twice its
// share of connections, dripping; this user's request is still served
// at once, and nobody's connections over its share wait only for its
// own and are then closed.
func TestListener_AnotherUserCannotStarveThisOne(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := make(chan string, 100)
	srv := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(ClientOf(r.Context()))) }),
		ConnContext:       ConnContext,
		ReadHeaderTimeout: time.Minute,
	}
	go srv.Serve(NewListener(ln, Limits{PerClient: 8, Wait: 100 * time.Millisecond, Refused: func(c string) { refused <- c }}))
	t.Cleanup(func() { srv.Close() })
	guardtest.HoldConns(t, ln.Addr().String(), 16, guardtest.Nobody)
	select {
	case c := <-refused:
		if c != "uid:65534" {
			t.Errorf("refused a connection of %q, want nobody's", c)
		}
	case <-time.After(realtime.Scaled(10 * time.Second)):
		t.Fatal("nobody's connections over its share were not refused")
	}
	cl := &http.Client{Timeout: realtime.Scaled(10 * time.Second)}
	resp, err := cl.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatalf("this user's request behind another user's connections: %v", err)
	}
	defer resp.Body.Close()
	b := make([]byte, 64)
	n, _ := resp.Body.Read(b)
	if want := "uid:" + itoa(os.Geteuid()); string(b[:n]) != want {
		t.Errorf("client %q, want %q", b[:n], want)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
