package swimcheck

import "unsafe"

// ApproxBytes estimates the memory a Clone holds beyond the results
// (hosts.Sizer): every observer's views (for a thousand peers, a million
// of them), the interned ids and each assertion's own state.
func (j *judge) ApproxBytes() int64 {
	b := int64(unsafe.Sizeof(*j)) + j.world.approxBytes()
	for _, k := range j.checkers {
		if s, ok := k.(interface{ approxBytes() int64 }); ok {
			b += s.approxBytes()
		}
	}
	return b
}

func (w *world) approxBytes() int64 {
	b := int64(len(w.ids))*48 + int64(cap(w.names))*16 + int64(cap(w.killed)+cap(w.ran))
	b += int64(cap(w.views)) * int64(unsafe.Sizeof([]packed(nil)))
	for _, row := range w.views {
		b += int64(cap(row)) * int64(unsafe.Sizeof(packed(0)))
	}
	b += int64(len(w.wide))*(8+int64(unsafe.Sizeof(view{}))) + int64(cap(w.times))*int64(unsafe.Sizeof(lineTime{}))
	return b
}

func (c *probeCheck) approxBytes() int64 {
	p := &c.spans
	b := int64(cap(p.sends))*16 + int64(cap(p.spans))*int64(unsafe.Sizeof(span{}))
	for i := range p.spans {
		s := &p.spans[i]
		b += int64(cap(s.pending))*int64(unsafe.Sizeof(pendingProbe{})) + int64(cap(s.marks))*int64(unsafe.Sizeof(mark{}))
	}
	return b
}

func (c *noFlap) approxBytes() int64 { return c.probeCheck.approxBytes() + int64(cap(c.phases)) }

func (c *convergence) approxBytes() int64 { return int64(cap(c.agree)) }
