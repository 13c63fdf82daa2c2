package render

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle"
)

// FuzzRender: any events.ndjson in a bundle that verifies either renders
// — when the reader accepts every line — to a page whose data is valid
// JSON holding no raw '<', or fails with a BundleError naming the line.
// Never a panic, never a page the data could break out of.
func FuzzRender(f *testing.F) {
	seed := []string{
		`{"virtual_time_ns":1,"host_id":"a","kind_tag":"swim","event":{"type":"message_sent","peer":"b","message":"ping","bytes":21,"updates":0}}`,
		`{"virtual_time_ns":2,"host_id":"b","kind_tag":"swim","event":{"type":"message_received","peer":"a","message":"ping","bytes":21,"updates":0}}`,
		`{"virtual_time_ns":3,"host_id":"a","kind_tag":"engine","event":{"type":"drop_on_send","from":"a","to":"b","reason":"lossy"}}`,
		`{"virtual_time_ns":4,"host_id":null,"kind_tag":"engine","event":{"type":"mutation","index":0,"kind":"LatencySpike","links":[{"from":"a","to":"b"}],"factor_x100":300,"duration_ns":9223372036854775807}}`,
		`{"virtual_time_ns":5,"host_id":"a","kind_tag":"swim","event":{"type":"state_transition","observer":"a","subject":"b","from":"alive","to":"suspect","incarnation":1,"reason":"probe_failed"}}`,
		`{"virtual_time_ns":6,"host_id":"b","kind_tag":"echo","event":{"type":"pong_received","peer":"a","seq":"x","bytes":-1}}`,
		`{"virtual_time_ns":9223372036854775807,"host_id":"</script>","kind_tag":"x","event":{"type":"<!--"}}`,
	}
	f.Add(strings.Join(seed, "\n"))
	f.Add(seed[0] + "\n" + seed[0] + "\n" + seed[1])
	f.Add(`{"virtual_time_ns":1}`)
	if b, err := os.ReadFile(filepath.Join("testdata", "fuzz-seed.ndjson")); err == nil {
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, events string) {
		lines := strings.Split(strings.TrimSuffix(events, "\n"), "\n")
		if events == "" {
			lines = nil
		}
		accepted := true
		for _, l := range lines {
			if _, err := bundle.ParseEventLine([]byte(l)); err != nil {
				accepted = false
			}
		}
		dir := filepath.Join(t.TempDir(), "b")
		writeBundle(t, dir, lines, `[{"name":"n","kind":"k","parameters":{},"outcome":"Fail","evidence":[{"virtual_time_ns":1,"event_or_snapshot_ref":"events.ndjson#L1"}],"reason":"r"}]`+"\n")
		var out bytes.Buffer
		_, err := Write(&out, dir, Options{})
		if err != nil {
			var be *BundleError
			if accepted || !errors.As(err, &be) || ExitCode(err) != 2 {
				t.Fatalf("accepted=%v: %v (exit %d)", accepted, err, ExitCode(err))
			}
			return
		}
		if !accepted {
			t.Fatalf("a line the reader refuses was rendered")
		}
		pageData(t, out.Bytes())
		if n := bytes.Count(bytes.ToLower(out.Bytes()), []byte("</script")); n != 2 {
			t.Fatalf("%d </script in the page", n)
		}
	})
}
