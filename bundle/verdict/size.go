package verdict

import "unsafe"

// ApproxBytes estimates the memory a Clone holds: every observer's views
// (for a thousand peers, a million of them), the interned ids, the rate
// logs and each assertion's own state. The engine asks it when deciding
// whether a checkpoint fits its byte budget.
func (e *Evaluator) ApproxBytes() int64 {
	b := int64(unsafe.Sizeof(*e)) + e.world.approxBytes()
	for _, k := range e.checkers {
		b += 128 + int64(cap(k.result().evidence))*int64(unsafe.Sizeof(Evidence{}))
		if s, ok := k.(interface{ approxBytes() int64 }); ok {
			b += s.approxBytes()
		}
	}
	return b
}

func (w *world) approxBytes() int64 {
	b := int64(len(w.ids))*48 + int64(cap(w.names))*16 + int64(cap(w.killed)+cap(w.ran))
	b += int64(cap(w.views)) * int64(unsafe.Sizeof([]view(nil)))
	for _, row := range w.views {
		b += int64(cap(row)) * int64(unsafe.Sizeof(view{}))
	}
	for _, l := range w.rates {
		b += int64(cap(l.buf)) + int64(cap(l.heads))*8
	}
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
