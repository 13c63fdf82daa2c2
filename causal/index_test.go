package causal

import (
	"bytes"
	"strconv"
	"testing"
)

// splitLine reads the envelope as detsim writes it, and falls back to
// searching on a line written otherwise.
func TestSplitLine(t *testing.T) {
	for _, c := range []struct {
		line, typ, host, payload string
		ok                       bool
	}{
		{`{"virtual_time_ns":12,"host_id":"orch","kind_tag":"swim","event":{"type":"message_sent","peer":"fra"}}` + "\n", "message_sent", "orch", `{"type":"message_sent","peer":"fra"}`, true},
		{`{"virtual_time_ns":0,"host_id":null,"kind_tag":"engine","event":{"type":"mutation","index":0}}`, "mutation", "", `{"type":"mutation","index":0}`, true},
		{`{"virtual_time_ns":5,"kind_tag":"k","host_id":"a","event":{"type":"x"}}`, "x", "a", `{"type":"x"}`, true}, // another order: searched
		{`{"virtual_time_ns":5,"host_id":"a"}`, "", "", "", false},
		{`not json`, "", "", "", false},
	} {
		typ, payload, host, ok := splitLine([]byte(c.line))
		if ok != c.ok || string(typ) != c.typ || string(host) != c.host || !bytes.Equal(payload, []byte(c.payload)) && c.ok {
			t.Errorf("%s: %q %q %q %v", c.line, typ, host, payload, ok)
		}
	}
}

// The index keeps what it is asked to, skips what it is told to, reads
// members whatever their order, and forgets its oldest half past its
// budget, saying up to where.
func TestIndex_KeepsSkipsForgets(t *testing.T) {
	ix := NewIndex(1<<14, Keep{Type: "st", Str: []string{"who", "why"}, Num: []string{"n"}, IDs: []string{"id"}, Skip: [2]string{"why", "initial"}})
	line := func(n int64, payload string) []byte {
		return []byte(`{"virtual_time_ns":` + strconv.FormatInt(n, 10) + `,"host_id":"h","kind_tag":"k","event":{"type":"st",` + payload + "}}\n")
	}
	ix.Add(1, 1, 1, line(1, `"who":"a","why":"initial","n":1`))
	ix.Add(2, 2, 2, line(2, `"n":-7,"id":"a#9","why":"gossip","who":"b","extra":[1,2],"more":{"x":"}"}`))
	ix.Add(2, 2, 2, line(2, `"who":"again"`)) // a line offered twice is read once
	ix.Add(3, 3, 3, []byte(`{"virtual_time_ns":3,"host_id":"h","kind_tag":"k","event":{"type":"other"}}`))
	if ix.Len() != 1 {
		t.Fatalf("holds %d, want only line 2", ix.Len())
	}
	r, ok := ix.At(2)
	if !ok || r.Str("who") != "b" || r.Str("why") != "gossip" || r.Num("n") != -7 || r.ID("id") != "a#9" || r.Host() != "h" || r.Type() != "st" {
		t.Fatalf("line 2: %v who %q why %q n %d id %q host %q", ok, r.Str("who"), r.Str("why"), r.Num("n"), r.ID("id"), r.Host())
	}
	if got := ix.WithID(r.IDCode("id")); len(got) != 1 || got[0].Line() != 2 {
		t.Errorf("WithID: %v", got)
	}
	for n := int64(4); n < 2000; n++ {
		ix.Add(n, n, n, line(n, `"who":"c","why":"gossip","n":`+strconv.FormatInt(n, 10)))
	}
	if ix.Forgotten() == 0 || ix.bytes() > 1<<14 {
		t.Errorf("forgot up to %d, holds %d bytes over a budget of %d", ix.Forgotten(), ix.bytes(), 1<<14)
	}
	if r, ok := ix.Latest("st", "h", 1999, nil); !ok || r.Num("n") != 1999 {
		t.Errorf("Latest after forgetting: %v %d", ok, r.Num("n"))
	}
	if _, ok := ix.At(2); ok {
		t.Errorf("line 2 still held after forgetting up to %d", ix.Forgotten())
	}
}

// TestIndex_TwoKindsKeepOneType: two kinds' explainers keeping one
// record type (swim's and raft's message_received) share its members:
// a member both keep is held once, and the records are still held.
// Before, each kept member was appended again, the type passed the
// eight members a record can hold, and every such record was dropped.
func TestIndex_TwoKindsKeepOneType(t *testing.T) {
	swim := Keep{Type: "message_received", Str: []string{"peer", "message"}, Num: []string{"bytes", "updates", "seq"}, IDs: []string{"id"}}
	raft := Keep{Type: "message_received", Str: []string{"peer", "message"}, Num: []string{"term"}, IDs: []string{"id"}}
	ix := NewIndex(0, swim, raft)
	ix.Add(1, 1, 1, []byte(`{"virtual_time_ns":1,"host_id":"n2","kind_tag":"raft","event":{"type":"message_received","peer":"n1","message":"MsgApp","id":"n1#4","bytes":30}}`))
	r, ok := ix.At(1)
	if !ok {
		t.Fatal("the record is not held")
	}
	if r.Str("peer") != "n1" || r.Str("message") != "MsgApp" || r.ID("id") != "n1#4" || r.Num("bytes") != 30 {
		t.Errorf("peer %q message %q id %q bytes %d", r.Str("peer"), r.Str("message"), r.ID("id"), r.Num("bytes"))
	}
}

// A memo is built once while the index holds the same records, and again
// once a record is added: an explainer's tables never answer from records
// they were not built over.
func TestIndex_MemoRebuiltWhenRecordsChange(t *testing.T) {
	ix := NewIndex(0, Keep{Type: "st", Str: []string{"who"}})
	builds := 0
	memo := func() int { return ix.Memo("k", func() any { builds++; return ix.Len() }).(int) }
	ix.AddRecord(1, 0, 1, "h", "st", []byte(`{"type":"st","who":"a"}`))
	first, again := memo(), memo()
	if first != 1 || again != 1 || builds != 1 {
		t.Fatalf("built %d times, want once over 1 record", builds)
	}
	ix.AddRecord(2, 0, 2, "h", "st", []byte(`{"type":"st","who":"b"}`))
	if n := memo(); n != 2 || builds != 2 {
		t.Fatalf("after a record added: memo over %d records, built %d times", n, builds)
	}
}
