package swimhost

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/swim/swim"
	"github.com/detsim/detsim/rng"
)

// TestStartUp_IsOneFoldedRecord: a node's start-up view reaches the
// engine as one hosts.Folded record standing for one initial
// state_transition per member, in id order, each of which differs from
// the first only in its subject, the member the fold names: what lets a
// bundle writer fold it and every reader expand it back
// (docs/bundle.md, "Folded lines"). The old adapter handed over one
// record per member, and fails here.
func TestStartUp_IsOneFoldedRecord(t *testing.T) {
	peers := make([]string, 300)
	for i := range peers {
		peers[i] = fmt.Sprintf("n%03d", i)
	}
	h := newHost("n007", map[string]any{}, "member", peers, rng.New(1).Host("n007", "swim"))
	var runs []hosts.Folded
	for _, a := range h.Tick(0) {
		if a.Kind() != hosts.ActRecord {
			continue
		}
		if st, ok := a.Event().(*swim.StateTransition); ok && st.Reason == swim.ReasonInitial {
			t.Fatalf("an initial transition (subject %s) handed over on its own", st.Subject)
		}
		if f, ok := a.Event().(hosts.Folded); ok {
			runs = append(runs, f)
		}
	}
	if len(runs) != 1 || runs[0].Len() != len(peers) {
		t.Fatalf("start-up: %d folded records, want one of %d transitions", len(runs), len(peers))
	}
	f := runs[0]
	first := f.At(0).AppendJSON(nil)
	if string(f.AppendJSON(nil)) != string(first) || f.Type() != "state_transition" {
		t.Fatalf("the fold's own JSON %s, want its first record's %s", f.AppendJSON(nil), first)
	}
	for i := range f.Len() {
		st := f.At(i).(*swim.StateTransition)
		if st.Subject != peers[i] || f.FoldValue(i) != st.Subject || f.FoldMember() != "subject" {
			t.Fatalf("record %d: subject %s, fold value %s of %q, want %s", i, st.Subject, f.FoldValue(i), f.FoldMember(), peers[i])
		}
		want := bytes.Replace(first, []byte(`"subject":`+strconv.Quote(peers[0])), []byte(`"subject":`+strconv.Quote(peers[i])), 1)
		if got := st.AppendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("record %d is %s, want the first with its subject changed: %s", i, got, want)
		}
	}
}
