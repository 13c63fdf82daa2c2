package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

// peerBlock declares n echo peers named prefix0 … prefix<n-1>.
func peerBlock(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "[[peers]]\nid = \"%s%d\"\nkind = \"echo\"\n", prefix, i)
	}
	return b.String()
}

// chainTop is the root of a test chain: everything but peers.
const chainTop = `name = "chain"
duration_ns = 1_000
[default_tick]
period_ns = 10
[default_link]
bandwidth_bps = 1000
`

// countingFiles is files() that counts the reads it serves.
func countingFiles(m map[string]string, reads *int) func(string) ([]byte, error) {
	read := files(m)
	return func(p string) ([]byte, error) {
		*reads++
		return read(p)
	}
}

// TestParse_PeerLimitAppliesWhileExtendsAreRead_Issue9: every file of an
// extends chain is under MaxPeers, but together they pass it. The load is
// refused as soon as the files read so far certainly merge to more than
// MaxPeers: the rest of the chain is never read, nothing is merged or
// validated. (Work is measured in files read, not in wall time.)
func TestParse_PeerLimitAppliesWhileExtendsAreRead_Issue9(t *testing.T) {
	const depth, each = 6, 4000 // 3 files make 12 000 distinct peers
	m := map[string]string{}
	for i := range depth {
		src := fmt.Sprintf("[base]\nextends = \"f%d.toml\"\n", i+1)
		if i == depth-1 {
			src = chainTop
		}
		m[fmt.Sprintf("f%d.toml", i)] = src + peerBlock(fmt.Sprintf("f%dp", i), each)
	}
	reads := 0
	_, err := Parse("f0.toml", []byte(m["f0.toml"]), testRegistry(), countingFiles(m, &reads))
	want := "f0.toml: peers: at least 12000 peers once extends are merged (counted as far as f2.toml); at most 10000 are supported"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %.500v\nwant %s", err, want)
	}
	if reads != 2 {
		t.Errorf("read %d parents, want 2: reading must stop where the limit is passed", reads)
	}

	t.Run("a child over the limit on its own reads no parent", func(t *testing.T) {
		child := "[base]\nextends = \"f1.toml\"\n" + strings.Repeat("[[peers]]\nid = \"a\"\n", MaxPeers+1)
		reads := 0
		_, err := Parse("c.toml", []byte(child), testRegistry(), countingFiles(m, &reads))
		if want := "c.toml: peers: 10001 peers declared; at most 10000 are supported"; err == nil || err.Error() != want {
			t.Errorf("err = %.500v\nwant %s", err, want)
		}
		if reads != 0 {
			t.Errorf("read %d parents, want 0", reads)
		}
	})

	t.Run("overriding the same ids down a chain is not counted twice", func(t *testing.T) {
		ok := map[string]string{}
		for i := range depth {
			src := fmt.Sprintf("[base]\nextends = \"f%d.toml\"\n", i+1)
			if i == depth-1 {
				src = chainTop + "[[links]]\nfrom = \"p0\"\nto = \"p1\"\n"
			}
			ok[fmt.Sprintf("f%d.toml", i)] = src + peerBlock("p", each)
		}
		s, err := Parse("f0.toml", []byte(ok["f0.toml"]), testRegistry(), files(ok))
		if err != nil {
			t.Fatalf("%.500v", err)
		}
		if len(s.Peers) != each {
			t.Errorf("%d peers, want %d", len(s.Peers), each)
		}
	})
}

// TestParse_PeerLimitErrorComesAlone_Issue9: past the peer limit no peer
// is declared, so references to peers in links, mutations and assertions
// must not each add an "undeclared peer" line.
func TestParse_PeerLimitErrorComesAlone_Issue9(t *testing.T) {
	refs := `[[links]]
from = "p1"
to = "p2"
[[mutations]]
at_ns = 5
kind = "PeerKill"
peer = "p3"
[[mutations]]
at_ns = 6
kind = "Partition"
peers_a = ["p1"]
peers_b = ["p2"]
[[assertions]]
kind = "all_alive_at"
at_ns = 9
peers = ["p4"]
[[assertions]]
kind = "self_incarnation_bounded"
peer = "p5"
max_value = 3
`
	got := parseErrs(t, chainTop+peerBlock("p", MaxPeers+1)+refs)
	want := "t.toml: peers: 10001 peers declared; at most 10000 are supported"
	if strings.Join(got, "\n") != want {
		t.Errorf("got\n%.2000s\nwant\n%s", strings.Join(got, "\n"), want)
	}

	t.Run("peers that are not a list", func(t *testing.T) {
		got := parseErrs(t, chainTop+"peers = 3\n"+refs)
		for _, line := range got {
			if strings.Contains(line, "undeclared peer") {
				t.Errorf("bogus line: %s", line)
			}
		}
	})
}
