package tui

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/debugger"
)

// The queue pane says what each delivery carries (its message, named by
// the kind's codec hook, and its id, which names its message_sent) and
// what each timer is for.
func TestQueue_SaysWhatEachEntryCarries(t *testing.T) {
	sc := loadScenario(t, "reproduction/gossip_flap")
	s, err := debugger.NewSession(sc, testRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := land(s, 4137, viewParams{bandHi: len(sc.Peers)})
	if err != nil {
		t.Fatal(err)
	}
	var deliver, timer int
	for _, q := range f.queue {
		switch q.Kind {
		case "Deliver":
			deliver++
			if q.What == "" || !strings.HasPrefix(q.ID, q.From+"#") {
				t.Errorf("delivery without its message or id: %+v", q)
			}
			if _, err := debugger.ParseQuery("type=message_sent id=" + q.ID); err != nil {
				t.Errorf("id %q is not searchable: %v", q.ID, err)
			}
			line := queueLine(&q, true)
			if !strings.Contains(line, "← "+q.ID+" "+q.What) {
				t.Errorf("queue line %q lacks %q", line, q.ID+" "+q.What)
			}
		case "Timer":
			timer++
			if q.What == "" {
				t.Errorf("timer without a purpose: %+v", q)
			}
		}
	}
	if deliver == 0 || timer == 0 {
		t.Fatalf("%d deliveries and %d timers queued at step 4137: the test shows nothing", deliver, timer)
	}
}
