package cli

import (
	"strings"
	"testing"
)

func TestByteSize_UnitsAndErrors(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "536870912": 536870912, "512MiB": 512 << 20, "512mib": 512 << 20, "1GiB": 1 << 30,
		"1G": 1 << 30, "800MB": 800_000_000, "1.5GB": 1_500_000_000, "64K": 64 << 10, "2kb": 2000, "10b": 10, " 3 MiB ": 3 << 20,
	} {
		var b byteSize
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, int64(b), err, want)
		}
	}
	for _, in := range []string{"", "MiB", "-1", "1TB", "lots", "1e30"} {
		var b byteSize
		if err := b.Set(in); err == nil {
			t.Errorf("Set(%q) accepted: %d", in, int64(b))
		}
	}
	b := byteSize(512 << 20)
	if b.String() != "512MiB" {
		t.Errorf("String() = %q", b.String())
	}
}

func TestCheckpointBudget_BadValueIsAUsageError(t *testing.T) {
	r := runIn("--checkpoint-budget", "lots", "reference/echo_parity")
	if r.code != exitUsage || !strings.Contains(r.stderr, "checkpoint-budget") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// --checkpoint-mem read as a memory limit and was not one (issue 22): it
// is refused, naming the new flag and what it bounds.
func TestCheckpointMem_RenamedSaysSo(t *testing.T) {
	r := runIn("--checkpoint-mem", "384MiB", "reference/echo_parity")
	if r.code != exitUsage || !strings.Contains(r.stderr, "renamed --checkpoint-budget") || !strings.Contains(r.stderr, "not the memory the process uses") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}
