package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// TestRun_OverloadedLinkDropsOnSendWithBufferFull_Issue9: a link offered
// more than its bandwidth forever fills its send buffer, and every send
// past it is a drop_on_send with reason buffer_full (DESIGN §8), on the
// default buffer and on a [[links]] override alike. The bundle's
// scenario.toml, which spells only the override, replays the same run.
func TestRun_OverloadedLinkDropsOnSendWithBufferFull_Issue9(t *testing.T) {
	// One largest datagram on the wire at the default 1 500-byte MTU: its
	// 65 507 bytes, the UDP header and 45 IPv4 headers, which count
	// against the send buffer (docs/network.md step 2b).
	const datagram = 65_507 + 8 + 20*45
	sc := loadFile(t, filepath.Join("testdata", "overload", "overloaded_link.toml"))
	out := filepath.Join(t.TempDir(), "bundle")
	res, err := Run(sc, builtin.Registry(), Config{Out: out, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	pings := map[string]int{}      // pings sent, by sender
	bufferFull := map[string]int{} // buffer_full drops, by "from>to"
	events, err := os.ReadFile(filepath.Join(out, "events.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(bytes.NewReader(events))
	for lines.Scan() {
		var rec struct {
			Host  string `json:"host_id"`
			Event struct {
				Type, From, To, Reason string
			} `json:"event"`
		}
		if err := json.Unmarshal(lines.Bytes(), &rec); err != nil {
			t.Fatal(err)
		}
		switch ev := rec.Event; ev.Type {
		case "ping_sent":
			pings[rec.Host]++
		case "drop_on_send":
			if ev.Reason != "buffer_full" {
				t.Fatalf("drop_on_send with reason %q: %s", ev.Reason, lines.Bytes())
			}
			if rec.Host != ev.From {
				t.Fatalf("drop_on_send recorded on %q, not the sender %q", rec.Host, ev.From)
			}
			bufferFull[ev.From+">"+ev.To]++
		}
	}
	// a→b keeps the default buffer: 4 MiB holds 63 whole datagrams with
	// their headers; b→a's override, two datagrams' payloads, holds one.
	for _, c := range []struct {
		edge, from string
		fit        int
	}{
		{"a>b", "a", scenarios.DefaultSendBufferBytes / datagram},
		{"b>a", "b", 1},
	} {
		if pings[c.from] <= c.fit {
			t.Fatalf("%s sent %d pings, too few to overflow %d", c.from, pings[c.from], c.fit)
		}
		if got, want := bufferFull[c.edge], pings[c.from]-c.fit; got != want {
			t.Errorf("%s: %d buffer_full drops of %d sends, want %d (all but %d)", c.edge, got, pings[c.from], want, c.fit)
		}
	}
	if res.Failed() {
		t.Errorf("verdicts %+v: nothing should cross a 1 B/s wire in 200 ms", res.Verdicts)
	}

	echo, err := os.ReadFile(filepath.Join(out, "scenario.toml"))
	if err != nil {
		t.Fatal(err)
	}
	again, err := scenarios.Parse("scenario.toml", echo, builtin.Registry(), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	replay, err := Run(again, builtin.Registry(), Config{Out: filepath.Join(t.TempDir(), "replay"), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if replay.Digest != res.Digest || replay.Records != res.Records {
		t.Errorf("the bundle's scenario.toml replays to %s (%d records), want %s (%d)", replay.Digest, replay.Records, res.Digest, res.Records)
	}
}
