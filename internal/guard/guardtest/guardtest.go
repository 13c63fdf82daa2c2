// Package guardtest plays the hostile local user the listeners' tests
// need: another user's process (nobody) holding connections open.
package guardtest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detsim/detsim/internal/realtime"
)

// Nobody is the user the hostile process runs as.
const Nobody = 65534

// HoldConns has a process of user uid open n connections to addr
// (host:port), send each the start of a request line and hold them
// open, dripping a byte every few seconds, until the test ends. It
// returns once every connection is open, or fails the test. It needs
// root (to run as another user) and bash (for /dev/tcp): it skips
// without them.
func HoldConns(t *testing.T, addr string, n, uid int) {
	t.Helper()
	bash := bashAsAnyone(t)
	host, port, _ := strings.Cut(addr, ":")
	script := fmt.Sprintf(`fds=()
for i in $(seq %d); do exec {fd}<>/dev/tcp/%s/%s || exit 3; printf 'P' >&$fd; fds+=($fd); done
echo ready
while :; do sleep 3; for fd in "${fds[@]}"; do printf 'O' >&$fd 2>/dev/null; done; done`, n, host, port)
	cmd := exec.Command(bash, "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}, Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	ready := make(chan bool, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- strings.TrimSpace(line) == "ready"
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("user %d's process could not open %d connections to %s", uid, n, addr)
		}
	case <-time.After(realtime.Scaled(30 * time.Second)):
		t.Fatalf("user %d's process did not open %d connections to %s in time", uid, n, addr)
	}
}

// Post has a process of user uid send one HTTP/1.1 POST of body to
// http://addr+path with the given headers (name → value) and returns
// the status and body of the answer. It skips like HoldConns.
func Post(t *testing.T, uid int, addr, path string, headers map[string]string, body string) (int, string) {
	t.Helper()
	bash := bashAsAnyone(t)
	host, port, _ := strings.Cut(addr, ":")
	var req strings.Builder
	fmt.Fprintf(&req, "POST %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\nContent-Length: %d\r\n", path, addr, len(body))
	for k, v := range headers {
		fmt.Fprintf(&req, "%s: %s\r\n", k, v)
	}
	req.WriteString("\r\n" + body)
	cmd := exec.Command(bash, "-c", fmt.Sprintf(`exec 3<>/dev/tcp/%s/%s && cat >&3 && cat <&3`, host, port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	cmd.Stdin = strings.NewReader(req.String())
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(realtime.Scaled(30 * time.Second)):
		cmd.Process.Kill()
		<-done
		t.Fatalf("user %d's POST %s got no answer in time", uid, path)
	}
	if err != nil {
		t.Fatalf("user %d's POST %s: %v", uid, path, err)
	}
	head, rest, _ := strings.Cut(string(out), "\r\n\r\n")
	var status int
	fmt.Sscanf(head, "HTTP/1.1 %d", &status)
	return status, rest
}

// bashAsAnyone is the bash a test runs as another user: it skips
// without root (which alone can be another user) or without bash
// (whose /dev/tcp makes the connections).
func bashAsAnyone(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash")
	}
	return bash
}
