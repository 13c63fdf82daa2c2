package swim

import "unsafe"

// ApproxBytes estimates the memory a Clone of the node holds: the member
// table, its indices, the extra state of the members that have any, the
// probe bookkeeping and the broadcast queue. Member ids and metadata are
// shared with the original and not counted. It walks the extra states once,
// so it costs about what a tenth of a Clone does; the engine asks it
// when deciding whether a checkpoint fits its byte budget.
func (n *Node) ApproxBytes() int64 {
	b := int64(unsafe.Sizeof(*n))
	b += int64(len(n.members)) * int64(unsafe.Sizeof(member{}))
	b += int64(len(n.added)) * int64(unsafe.Sizeof(""))
	for _, x := range n.extras {
		b += 8 + int64(unsafe.Sizeof(*x))
		if x.susp != nil {
			b += int64(unsafe.Sizeof(*x.susp)) + int64(len(x.susp.accusers))*int64(unsafe.Sizeof(""))
		}
	}
	b += 4 * int64(len(n.addedByID)+len(n.order)+len(n.suspects))
	b += int64(len(n.relays)) * int64(unsafe.Sizeof(relay{}))
	b += int64(len(n.cfg.Seeds)) * int64(unsafe.Sizeof(""))
	// The queue: a pointer and a copied broadcast per item, and a map
	// entry (key, pointer, bucket overhead) for the newest about each member.
	b += int64(len(n.queue.items)) * (8 + int64(unsafe.Sizeof(broadcast{})))
	b += int64(len(n.queue.latest)) * 48
	return b
}
