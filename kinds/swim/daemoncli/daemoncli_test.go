package daemoncli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detsim/detsim/internal/realtime"
)

func parse(t *testing.T, args ...string) (*Flags, error) {
	t.Helper()
	f := &Flags{}
	return f, f.Parse("d", args, io.Discard, nil)
}

// Every refusal names the flag at fault; testbed addresses need a
// namespace this process really runs in.
func TestCheck_Refusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--id", "", "--bind", "127.0.0.1:1"}, "--id"},
		{[]string{"--id", "a"}, "--bind is required"},
		{[]string{"--id", "a", "--bind", "0.0.0.0:1"}, "not a loopback address"},
		{[]string{"--id", "a", "--bind", "10.213.1.2:1"}, "not a loopback address"},
		{[]string{"--id", "a", "--bind", "10.213.1.2:1", "--netns", "dtb-nosuchrun-p0"}, "--netns dtb-nosuchrun-p0"},
		{[]string{"--id", "a", "--bind", "127.0.0.1:1", "--netns", "myns"}, "not a testbed namespace"},
		{[]string{"--id", "a", "--bind", "127.0.0.1:1", "--peers", "b=192.168.1.1:2"}, "not a loopback address"},
		{[]string{"--id", "a", "--bind", "127.0.0.1:1", "--peers", "b=127.0.0.1:2,b=127.0.0.1:3"}, "listed twice"},
		{[]string{"--id", "a", "--bind", "127.0.0.1:1", "--seeds", "127.0.0.1:9"}, "no --peers entry"},
		{[]string{"--id", "a", "--bind", "127.0.0.1:1", "--state", "down"}, "--state"},
		{[]string{"--id", "a", "--bind", "127.0.0.1:1", "--duration", "2h"}, "at most 1h"},
		{[]string{"--id", "a", "--bind", "127.0.0.1:1", "--snapshot-on-stop"}, "need --snapshot-dir"},
	} {
		_, err := parse(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: %v, want an error containing %q", c.args, err, c.msg)
		}
	}
}

// Seeds given as addresses become ids, imply joining, and reach the
// kind's parser as kind_config's seeds; given twice, they are refused.
func TestCheck_SeedsFoldIntoKindConfig(t *testing.T) {
	f, err := parse(t, "--id", "c", "--bind", "127.0.0.1:3",
		"--peers", "a=127.0.0.1:1,b=127.0.0.1:2,c=127.0.0.1:3", "--seeds", "127.0.0.1:1,b")
	if err != nil {
		t.Fatal(err)
	}
	if f.State != "joining" || !reflect.DeepEqual(f.Seeds, []string{"a", "b"}) ||
		!reflect.DeepEqual(f.KindConfig["seeds"], []any{"a", "b"}) || !reflect.DeepEqual(f.Peers(), []string{"a", "b", "c"}) {
		t.Errorf("state %q seeds %v kind_config %v peers %v", f.State, f.Seeds, f.KindConfig, f.Peers())
	}
	kc := filepath.Join(t.TempDir(), "k.toml")
	if err := os.WriteFile(kc, []byte("seeds = [\"a\"]\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := parse(t, "--id", "c", "--bind", "127.0.0.1:3", "--peers", "a=127.0.0.1:1",
		"--seeds", "a", "--kind-config", kc); err == nil || !strings.Contains(err.Error(), "give one") {
		t.Errorf("seeds twice: %v", err)
	}
	if f, err := parse(t, "--id", "a", "--bind", "127.0.0.1:1"); err != nil || f.State != "member" {
		t.Errorf("no seeds: state %q, %v", f.State, err)
	}
}

// Loop begins the node at the start instant, not before: the daemon's
// half of the testbed's start barrier (docs/testbed.md, "How a run
// starts").
func TestLoop_StartsAtTheStartInstant(t *testing.T) {
	start := time.Now().Add(300 * time.Millisecond)
	sigs := make(chan os.Signal, 1)
	began := make(chan time.Time, 1)
	done := make(chan int, 1)
	go func() {
		done <- Loop{Name: "d", Stderr: io.Discard, Sigs: sigs,
			Flags:    &Flags{StartUnixNs: start.UnixNano(), Duration: time.Hour},
			Snapshot: func() []byte { return nil }, Flush: func() error { return nil },
			Start: func() { began <- time.Now() }}.Run()
	}()
	select {
	case at := <-began:
		if at.Before(start) {
			t.Errorf("began %v before the start instant", start.Sub(at))
		}
	case <-time.After(realtime.Scaled(10 * time.Second)):
		t.Fatal("never began")
	}
	sigs <- syscall.SIGTERM
	if code := <-done; code != 0 {
		t.Errorf("exit %d", code)
	}
}

// A SIGTERM already waiting when the loop first looks, with the start
// instant passed, meets a node that has begun: the start timer and the
// signal are both ready on a busy machine, and a select that took the
// signal first ended the daemon without its first record (swimd
// TestInsecureSaysSo failed in CI on it).
func TestLoop_StoppedAfterTheStartInstantHasBegun(t *testing.T) {
	for range 20 { // the select picks at random between ready cases
		sigs := make(chan os.Signal, 1)
		sigs <- syscall.SIGTERM
		began := false
		code := Loop{Name: "d", Stderr: io.Discard, Sigs: sigs,
			Flags:    &Flags{StartUnixNs: time.Now().Add(-time.Second).UnixNano(), Duration: time.Hour},
			Snapshot: func() []byte { return nil }, Flush: func() error { return nil },
			Start: func() { began = true }}.Run()
		if code != 0 || !began {
			t.Fatalf("exit %d, began %v: a node stopped after its start instant must have begun", code, began)
		}
	}
}

// Before the start instant a snapshot is refused (the node has not
// begun, and swimd's could not answer) and SIGTERM ends the loop at once
// without beginning: a refused testbed run stops its daemons there.
func TestLoop_StoppedBeforeTheStartInstantNeverBegins(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	var stderr bytes.Buffer
	sigs <- syscall.SIGUSR1
	sigs <- syscall.SIGTERM
	code := Loop{Name: "d", Stderr: &stderr, Sigs: sigs,
		Flags:    &Flags{StartUnixNs: time.Now().Add(time.Hour).UnixNano(), Duration: time.Hour, SnapDir: t.TempDir(), SnapshotOnStop: true},
		Snapshot: func() []byte { t.Error("a snapshot before the start instant"); return nil },
		Flush:    func() error { return nil },
		Start:    func() { t.Error("began before the start instant") }}.Run()
	if code != 0 || !strings.Contains(stderr.String(), "before the start instant") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
}
