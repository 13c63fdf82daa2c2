package verdict

import (
	"unsafe"

	"github.com/detsim/detsim/hosts"
)

// ApproxBytes estimates the memory a Clone holds: the rate logs, each
// core assertion's own state and each judge's (hosts.Sizer; a judge that
// does not say is counted as its results). The engine asks it when
// deciding whether a checkpoint fits its byte budget.
func (e *Evaluator) ApproxBytes() int64 {
	b := int64(unsafe.Sizeof(*e))
	for _, l := range e.world.rates {
		b += int64(cap(l.buf)) + int64(cap(l.heads))*8
	}
	for _, r := range e.results {
		b += 128 + int64(cap(r.Evidence))*int64(unsafe.Sizeof(Evidence{}))
	}
	for _, f := range e.judges {
		if s, ok := f.judge.(hosts.Sizer); ok {
			b += s.ApproxBytes()
		}
	}
	return b
}
