package verdict

import (
	"bytes"
	"testing"

	"github.com/detsim/detsim/bundle"
)

// fuzzTypes are the event types the evaluator decodes, plus one it only
// counts.
var fuzzTypes = []string{"state_transition", "probe_sent", "probe_acked", "probe_timed_out",
	"message_sent", "self_incarnation_bump", "mutation", "drop_on_send"}

// FuzzObserve feeds records with arbitrary payloads and times to an
// evaluator judging every kind: it must never panic, and Finish and
// Marshal must always work.
func FuzzObserve(f *testing.F) {
	s, _ := goldenRun()
	var seed bytes.Buffer
	for _, rec := range s.records(f) {
		seed.WriteByte(byte(rec.VirtualTimeNs / sec))
		seed.Write(rec.Event)
		seed.WriteByte('\n')
	}
	f.Add(seed.Bytes())
	f.Add([]byte("\x06{\"type\":\"mutation\",\"kind\":\"PeerResurrect\",\"peer\":\"c\"}\n\x06{\"type\":\"mutation\",\"kind\":\"PeerKill\",\"peer\":\"zz\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, as := goldenRun()
		e, err := New(as)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range bytes.Split(data, []byte("\n")) {
			if len(l) == 0 {
				continue
			}
			rec := bundle.EventRecord{
				VirtualTimeNs: int64(l[0]) * sec / 4,
				HostID:        []string{"", "a", "b", "c"}[int(l[0])%4],
				KindTag:       "swim",
				Type:          fuzzTypes[int(l[0])%len(fuzzTypes)],
				Event:         l[1:],
			}
			if t := bytes.Index(l, []byte(`"type":"`)); t >= 0 {
				if end := bytes.IndexByte(l[t+8:], '"'); end >= 0 {
					rec.Type = string(l[t+8 : t+8+end])
				}
			}
			e.Observe(i+1, rec)
			e.Resolved()
			e.Status()
		}
		Marshal(e.Clone().Finish(100 * sec))
	})
}
