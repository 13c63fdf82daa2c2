package swimcheck

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/detsim/detsim/internal/jsonscan"
)

// payloadPath is one payload type read both ways.
type payloadPath struct {
	name string
	fast func(raw []byte, tx *jsonscan.Strings) (any, bool)
	slow func(raw []byte) (any, error)
}

var payloadPaths = []payloadPath{
	{"state_transition",
		func(raw []byte, tx *jsonscan.Strings) (any, bool) { return fastTransition(raw, tx) },
		func(raw []byte) (any, error) { return slowTransition(raw) }},
	{"probe",
		func(raw []byte, tx *jsonscan.Strings) (any, bool) { return fastProbe(raw, tx) },
		func(raw []byte) (any, error) { return slowProbe(raw, "probe_sent") }},
	{"message_sent",
		func(raw []byte, tx *jsonscan.Strings) (any, bool) { return fastMessage(raw, tx) },
		func(raw []byte) (any, error) { return slowMessage(raw) }},
	{"self_incarnation_bump",
		func(raw []byte, _ *jsonscan.Strings) (any, bool) { return fastBump(raw) },
		func(raw []byte) (any, error) { return slowBump(raw) }},
	{"mutation",
		func(raw []byte, tx *jsonscan.Strings) (any, bool) { return fastMutation(raw, tx) },
		func(raw []byte) (any, error) { return slowMutation(raw) }},
}

// ownPayloads are payloads as the simulator writes them: each fast
// decoder must take the ones of its type.
var ownPayloads = map[string][]string{
	"state_transition": {
		`{"type":"state_transition","observer":"sgp","subject":"orch","from":"none","to":"alive","incarnation":0,"reason":"initial"}`,
		`{"type":"state_transition","observer":"a","subject":"b","from":"alive","to":"suspect","incarnation":18446744073709551615,"reason":"probe \"timed\" out"}`,
	},
	"probe": {
		`{"type":"probe_acked","target":"orch","seq":1,"mode":"direct","rtt_ns":93276886}`,
		`{"type":"probe_sent","target":"héllo","seq":0,"mode":"indirect","via":["a","b"]}`,
	},
	"message_sent": {
		`{"type":"message_sent","peer":"orch","message":"ping","bytes":34,"updates":1}`,
		`{"type":"message_sent","peer":"x","message":"join_response","bytes":-9223372036854775808,"members":[{"id":"a","inc":3}]}`,
	},
	"self_incarnation_bump": {
		`{"type":"self_incarnation_bump","old":3,"new":4,"cause":"refute"}`,
	},
	"mutation": {
		`{"type":"mutation","index":0,"kind":"Partition","peers_a":["a","b"],"peers_b":[]}`,
		`{"type":"mutation","index":1,"kind":"PeerResurrect","peer":"c","preserve_state":true}`,
		`{"type":"mutation","index":2,"kind":"LatencySpike","links":[{"from":"a","to":"b"}],"factor_x100":250,"duration_ns":1000000000}`,
		`{"type":"mutation","kind":"Partition","peers_a":["a",null],"peers_b":null,"preserve_state":null}`,
	},
}

// tricky are payloads near the fast path's edge: it must leave each to
// encoding/json or agree with it exactly.
var tricky = []string{
	`{"observer":"a","observer":"b","subject":"c","to":"dead","incarnation":1}`,
	`{"Observer":"a","subject":"c","to":"dead","incarnation":1}`,
	`{"seq":1,"SEQ":2,"target":"a","mode":"direct"}`,
	`{"target":"a\u0062","seq":1,"mode":"direct"}`,
	`{"target":"a","seq":1.0,"mode":"direct"}`,
	`{"target":"a","seq":1e2,"mode":"direct"}`,
	`{"target":"a","seq":-1,"mode":"direct"}`,
	`{"target":"a","seq":18446744073709551616,"mode":"direct"}`,
	`{"target":"a","seq":"1","mode":"direct"}`,
	`{"target":"a","seq":null,"mode":null}`,
	`{"target":1,"seq":1,"mode":"direct"}`,
	`{"message":"ping","bytes":-0}`,
	`{"message":"ping","bytes":9223372036854775808}`,
	`{"message":"ping","bytes":01}`,
	`{"new":true}`,
	`{"new":4}x`,
	`{"new":4} `,
	` {"new":4}`,
	`{"new":4,}`,
	`{}`,
	`[]`,
	`null`,
	``,
	`{"kind":"Partition","peers_a":["a",1]}`,
	`{"kind":"Partition","peers_a":["a"],"peers_a":["b"]}`,
	`{"kind":"PeerKill","peer":"a","preserve_state":"yes"}`,
	`{"kind":"Partition","peers_a":"a"}`,
	`{"kind":"Partition","x":{"y":[1,2,{"z":"\ud83d\ude00"}]},"peers_b":["b"]}`,
	"{\"kind\":\"Partition\",\"peers_a\":[\"a\xff\"]}",
	"{\"message\":\"p\xc3\xa9ng\",\"bytes\":1,\"note\":\"\xff\"}",
	"{\"message\":\"ping\x01\",\"bytes\":1}",
}

// checkPayload fails when a fast decoder accepts raw and encoding/json
// rejects it or decodes other values.
func checkPayload(t *testing.T, raw []byte) {
	t.Helper()
	var tx jsonscan.Strings
	for _, p := range payloadPaths {
		want, err := p.slow(raw)
		for _, strs := range []*jsonscan.Strings{nil, &tx, &tx} {
			got, ok := p.fast(raw, strs)
			if !ok {
				continue
			}
			if err != nil {
				t.Fatalf("%s: fast path accepted %q, encoding/json rejects it: %v", p.name, raw, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %q\nfast %#v\nslow %#v", p.name, raw, got, want)
			}
		}
	}
}

func TestPayloads_FastPathTakesOwnPayloads(t *testing.T) {
	for _, p := range payloadPaths {
		for _, raw := range ownPayloads[p.name] {
			if _, ok := p.fast([]byte(raw), nil); !ok {
				t.Errorf("%s: fast path left its own payload to encoding/json: %s", p.name, raw)
			}
			checkPayload(t, []byte(raw))
		}
	}
}

func TestPayloads_FastPathAgreesWithEncodingJSON(t *testing.T) {
	for _, raw := range tricky {
		checkPayload(t, []byte(raw))
	}
}

// TestPayloads_FastPathAgreesOnEveryOneByteEdit deletes, replaces and
// inserts one byte at every position of the simulator's own payloads.
func TestPayloads_FastPathAgreesOnEveryOneByteEdit(t *testing.T) {
	edits := []byte("\"\\{}[],: 0-.eEnultTS1a\x00\x80\xff")
	for _, name := range []string{"state_transition", "probe", "message_sent", "self_incarnation_bump", "mutation"} {
		for _, raw := range ownPayloads[name] {
			b := []byte(raw)
			for i := range len(b) + 1 {
				if i < len(b) {
					checkPayload(t, append(bytes.Clone(b[:i]), b[i+1:]...))
				}
				for _, c := range edits {
					if i < len(b) {
						r := bytes.Clone(b)
						r[i] = c
						checkPayload(t, r)
					}
					checkPayload(t, append(append(bytes.Clone(b[:i]), c), b[i:]...))
				}
			}
		}
	}
}

// FuzzFastVsSlow holds the payload fast path to its contract on any
// bytes: what it accepts, encoding/json decodes to the same values.
func FuzzFastVsSlow(f *testing.F) {
	for _, raws := range ownPayloads {
		for _, raw := range raws {
			f.Add([]byte(raw))
		}
	}
	for _, raw := range tricky {
		f.Add([]byte(raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkPayload(t, raw)
	})
}

// TestDecode_OwnPayloadsDoNotAllocate: once a run's strings are known,
// decoding the simulator's own payloads allocates nothing per record.
func TestDecode_OwnPayloadsDoNotAllocate(t *testing.T) {
	var tx jsonscan.Strings
	transition := []byte(ownPayloads["state_transition"][0])
	probe := []byte(ownPayloads["probe"][0])
	message := []byte(ownPayloads["message_sent"][0])
	bump := []byte(ownPayloads["self_incarnation_bump"][0])
	decodeAll := func() {
		_, _, err1 := decodeTransition(transition, "sgp", &tx)
		_, err2 := decodeProbe(probe, "probe_acked", "fra", &tx)
		_, err3 := decodeMessage(message, &tx)
		_, err4 := decodeBump(bump)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			t.Fatal(err)
		}
	}
	decodeAll()
	if allocs := testing.AllocsPerRun(50, decodeAll); allocs != 0 {
		t.Errorf("decoding own payloads allocated %v times per round, want 0", allocs)
	}
}

// TestExactTransition_TakesTheSimulatorsOwnShape: the literal-matching
// reader must accept what kinds/swim/swim writes (or every big run silently
// falls back to the slower member-by-member reader), and refuse the
// same payload with its members in another order, which the slower
// reader then takes.
func TestExactTransition_TakesTheSimulatorsOwnShape(t *testing.T) {
	own := `{"type":"state_transition","observer":"fra","subject":"sgp","from":"suspect","to":"dead","incarnation":14,"reason":"suspicion_timeout"}`
	p, ok := exactTransition([]byte(own), nil)
	want := transitionPayload{Observer: "fra", Subject: "sgp", To: "dead", Incarnation: 14, hasIncarnation: true}
	if !ok || p != want {
		t.Fatalf("exactTransition(own shape) = %+v, %v; want %+v, true", p, ok, want)
	}
	swapped := `{"type":"state_transition","subject":"sgp","observer":"fra","from":"suspect","to":"dead","incarnation":14,"reason":"suspicion_timeout"}`
	if _, ok := exactTransition([]byte(swapped), nil); ok {
		t.Fatal("exactTransition took members out of order")
	}
	if p, ok := fastTransition([]byte(swapped), nil); !ok || p != want {
		t.Fatalf("fastTransition(swapped) = %+v, %v; want %+v, true", p, ok, want)
	}
	checkPayload(t, []byte(own))
	checkPayload(t, []byte(swapped))
}
