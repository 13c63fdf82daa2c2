package realtime

import (
	"flag"
	"testing"
)

// beside counts the runs of this test beside one as load per CPU, so a
// test binary's own episodes slow each other's deadlines' real time as
// the machine's other load does (ScaleParallel's comment).
func TestBeside(t *testing.T) {
	for _, c := range []struct{ measured, parallel, ncpu, want int }{
		{1, 1, 2, 1},   // alone: the measured scale
		{1, 2, 2, 2},   // go test's default on 2 CPUs: one neighbour takes a CPU
		{6, 2, 2, 7},   // load 12.5 on 2 CPUs, 2 at once
		{3, 4, 2, 5},   // 4 at once on 2 CPUs: three neighbours, two per CPU
		{2, 4, 8, 3},   // many CPUs: the neighbours share them
		{9, 4, 2, 10},  // at most MaxScale
		{0, 0, 0, 1},   // nonsense in, at least 1 out
		{12, 1, 2, 10}, // a measurement over MaxScale still bounded
	} {
		if got := beside(c.measured, c.parallel, c.ncpu); got != c.want {
			t.Errorf("beside(%d, %d, %d) = %d, want %d", c.measured, c.parallel, c.ncpu, got, c.want)
		}
	}
}

// ScaleParallel reads go test's -parallel and is never below the
// binary's Scale.
func TestScaleParallel(t *testing.T) {
	if got := parallel(); got != flag.Lookup("test.parallel").Value.(flag.Getter).Get().(int) {
		t.Errorf("parallel() = %d, not go test's -parallel", got)
	}
	if s, p := Scale(), ScaleParallel(); p < s || p > MaxScale {
		t.Errorf("ScaleParallel() = %d, want within [Scale() %d, %d]", p, s, MaxScale)
	}
}
