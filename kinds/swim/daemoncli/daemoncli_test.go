package daemoncli

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
