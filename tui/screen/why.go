package screen

import (
	"github.com/detsim/detsim/debugger"
)

// maxInspected is how many entries of a list a host's introspection
// gives (hosts.Inspector): a legacy SWIM broadcast queue can hold
// thousands, and the pane says how many it left out.
const maxInspected = 2000

// addInspect asks the selected host for what its snapshot does not hold
// (hosts.Inspector, through engine.Inspect); its kind's pane draws it.
func (f *Frame) addInspect(s *debugger.Session, sel int) {
	if sel < 0 || sel >= len(f.peers) {
		return
	}
	f.inspect = s.Timeline().Engine().Inspect(f.order.engine(sel), maxInspected)
}
