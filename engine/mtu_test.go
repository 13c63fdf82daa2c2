package engine

import (
	"strings"
	"testing"
)

// TestSend_TooLargeDatagramIsDropOnSend_5_7: on a link with an MTU, a
// datagram over 65 507 bytes is refused at send (the spec §5.7
// amendment): the engine records drop_on_send with reason too_large and
// hands the sender a SendFailed saying so, as for any refused send; the
// largest datagram still arrives.
func TestSend_TooLargeDatagramIsDropOnSend_5_7(t *testing.T) {
	for _, tc := range []struct {
		bytes   int64
		refused bool
	}{{65_507, false}, {65_508, true}} {
		sc := scriptScenario(map[string]any{"send_to": "p01", "send_bytes": tc.bytes}, 1_000_000_000)
		for i := range sc.Links {
			sc.Links[i].Policy.MTUBytes = 1500
		}
		var w lines
		mustEngine(t, sc, Options{Writer: &w}).Run()
		out := w.buf.String()
		drops := strings.Count(out, `"kind_tag":"engine","event":{"type":"drop_on_send","from":"p00","to":"p01","reason":"too_large"}`)
		failed := strings.Count(out, `"host_id":"p00","kind_tag":"script","event":{"type":"send_failed","n":`)
		reason := strings.Count(out, `"reason":"too_large"`) - drops
		recvs := strings.Count(out, `"host_id":"p01","kind_tag":"script","event":{"type":"recv"`)
		switch {
		case tc.refused && (drops == 0 || failed != drops || reason != drops || recvs != 0):
			t.Errorf("%d bytes: %d too_large drops, %d send failures (%d saying too_large), %d deliveries; want every send refused and reported", tc.bytes, drops, failed, reason, recvs)
		case !tc.refused && (drops != 0 || failed != 0 || recvs == 0):
			t.Errorf("%d bytes: %d drops, %d send failures, %d deliveries; want every send delivered", tc.bytes, drops, failed, recvs)
		}
	}
}
