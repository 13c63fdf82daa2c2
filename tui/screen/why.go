package screen

import (
	"encoding/json"

	"github.com/detsim/detsim/debugger"
)

// whyView is what the selected host's kind tells beyond its snapshot
// (hosts.Inspector, through engine.Inspect): for SWIM, who accused each
// suspect or dead member, and the broadcast queue's entries. A frame
// holds it for one host only, the selected one.
type whyView struct {
	idx     int // the host (peer index) it is about
	Accused []struct {
		Member      string `json:"member"`
		State       string `json:"state"`
		Incarnation uint64 `json:"incarnation"`
		Accuser     string `json:"accuser"`
	} `json:"accused"`
	Queue struct {
		Total   int         `json:"total"`
		Entries []queuedNew `json:"entries"`
	} `json:"broadcast_queue"`
}

// queuedNew is one broadcast queue entry.
type queuedNew struct {
	Member      string `json:"member"`
	State       string `json:"state"`
	Incarnation uint64 `json:"incarnation"`
	Accuser     string `json:"accuser"`
	Transmits   int    `json:"transmits"`
	Bytes       int    `json:"bytes"`
}

// maxQueueEntries is how many broadcast queue entries a frame lists: a
// legacy queue can hold thousands, and the pane says how many it left out.
const maxQueueEntries = 2000

// accuser is who accused member, if the host holds it suspect or dead.
func (w *whyView) accuser(member string) (string, bool) {
	if w == nil {
		return "", false
	}
	for _, a := range w.Accused {
		if a.Member == member {
			return a.Accuser, true
		}
	}
	return "", false
}

// addWhy asks the selected host for what its snapshot does not hold.
func (f *Frame) addWhy(s *debugger.Session, sel int) {
	if sel < 0 || sel >= len(f.peers) {
		return
	}
	b := s.Timeline().Engine().Inspect(f.order.engine(sel), maxQueueEntries)
	if b == nil {
		return
	}
	w := &whyView{idx: sel}
	if json.Unmarshal(b, w) != nil {
		return
	}
	f.why = w
}
