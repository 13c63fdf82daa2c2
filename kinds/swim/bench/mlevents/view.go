package mlevents

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/hashicorp/memberlist"

	"github.com/detsim/detsim/kinds/swim/swim"
)

// View is one member as one node sees it.
type View struct {
	State swim.State
	Inc   uint64
}

// mlState maps memberlist's NodeStateType: alive, suspect, dead, left
// (a graceful leave, which neither the witness nor memberlistd makes)
// onto detsim's states.
func mlState(s int64) swim.State {
	switch s {
	case 0:
		return swim.Alive
	case 1:
		return swim.Suspect
	}
	return swim.Dead
}

// ReadView reads a node's member list: memberlist reports neither
// suspicion learnt by gossip nor any incarnation through its delegates
// (NotifyJoin/Leave/Update fire on none → alive, dead → alive, → dead and
// metadata changes), so this reads the two unexported fields that hold
// its view, nodeMap (name → *nodeState{Incarnation, State}) under
// nodeLock, by reflection. v0.7.0's layout; the witness's
// TestWitness_ReadsMemberlistView fails if it changes. It takes
// memberlist's lock: never call it holding a lock memberlist's callbacks
// (log lines, delegates) take.
func ReadView(m *memberlist.Memberlist) map[string]View {
	v := reflect.ValueOf(m).Elem()
	lock := (*sync.RWMutex)(unsafe.Pointer(v.FieldByName("nodeLock").UnsafeAddr()))
	lock.RLock()
	defer lock.RUnlock()
	nm := v.FieldByName("nodeMap")
	out := make(map[string]View, nm.Len())
	for it := nm.MapRange(); it.Next(); {
		ns := it.Value().Elem()
		out[it.Key().String()] = View{State: mlState(ns.FieldByName("State").Int()), Inc: ns.FieldByName("Incarnation").Uint()}
	}
	return out
}
