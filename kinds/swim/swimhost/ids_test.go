package swimhost_test

import (
	"encoding/json"
	"testing"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/echo"
	"github.com/detsim/detsim/kinds/swim/swimhost"
	"github.com/detsim/detsim/scenarios"
)

// TestMessageIDs_PairEverySendWithItsEnd runs library scenarios (the
// flap, a partition, kills and restarts) and follows every message by its
// id: every message_received, drop_on_send, drop_on_delivery and
// decode_error names a message an earlier message_sent named, from that
// sender to that receiver, and ends it (a message ends once; a fresh life
// of a sender starts counting again, so an id names one message at a
// time); a message_received repeats its send's kind, bytes, updates and
// seq. Every send of the run has an id.
func TestMessageIDs_PairEverySendWithItsEnd(t *testing.T) {
	reg := hosts.NewRegistry(swimhost.Kind, echo.Kind)
	for _, name := range []string{"reproduction/gossip_flap", "topology/partition_heal", "topology/rolling_restart", "topology/churn"} {
		t.Run(name, func(t *testing.T) {
			sc, err := scenarios.LoadLibrary(name, reg)
			if err != nil {
				t.Fatal(err)
			}
			type rec struct {
				Host  string `json:"host_id"`
				Event struct {
					Type    string  `json:"type"`
					Peer    string  `json:"peer"`
					From    string  `json:"from"`
					To      string  `json:"to"`
					Message string  `json:"message"`
					Bytes   int     `json:"bytes"`
					Updates int     `json:"updates"`
					ID      string  `json:"id"`
					Seq     *uint64 `json:"seq"`
				} `json:"event"`
			}
			inFlight := map[string]rec{} // id → its message_sent, until it ends
			var sends, received, dropped int
			var bad []string
			tap := func(line, _ int64, b []byte) {
				var r rec
				if err := json.Unmarshal(b, &r); err != nil {
					t.Fatalf("record %d: %v", line, err)
				}
				ev := &r.Event
				switch ev.Type {
				case "message_sent":
					sends++
					if ev.ID == "" {
						bad = append(bad, "a message_sent without an id: "+string(b))
						return
					}
					if _, dup := inFlight[ev.ID]; dup {
						bad = append(bad, "id "+ev.ID+" sent again while in flight")
					}
					inFlight[ev.ID] = r
				case "message_received", "drop_on_send", "drop_on_delivery", "decode_error":
					if ev.ID == "" {
						bad = append(bad, "no id: "+string(b))
						return
					}
					sent, ok := inFlight[ev.ID]
					if !ok {
						bad = append(bad, "no message_sent in flight for "+string(b))
						return
					}
					delete(inFlight, ev.ID)
					from, to := ev.From, ev.To
					if ev.Type == "message_received" {
						received++
						from, to = ev.Peer, r.Host
						if ev.Message != sent.Event.Message || ev.Bytes != sent.Event.Bytes || ev.Updates != sent.Event.Updates ||
							(ev.Seq == nil) != (sent.Event.Seq == nil) || ev.Seq != nil && *ev.Seq != *sent.Event.Seq {
							bad = append(bad, "received differs from its send: "+string(b))
						}
					} else {
						dropped++
					}
					if from != sent.Host || to != sent.Event.Peer {
						bad = append(bad, "wrong ends "+from+"→"+to+" for "+string(b))
					}
				}
			}
			e, err := engine.New(sc, reg, engine.Options{Tap: tap})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Run(); err != nil {
				t.Fatal(err)
			}
			for i, s := range bad {
				if i == 10 {
					t.Fatalf("… %d problems in all", len(bad))
				}
				t.Error(s)
			}
			if sends < 100 || received < sends/2 {
				t.Fatalf("%d sends, %d received: the run did not exercise messages", sends, received)
			}
			// What is left was still in flight when the run ended.
			t.Logf("%d sends: %d received, %d dropped, %d in flight at the end", sends, received, dropped, len(inFlight))
		})
	}
}
