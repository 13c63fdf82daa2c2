package tui

import (
	"math"
	"testing"
)

func TestTimeColumns(t *testing.T) {
	tests := []struct {
		ns          int64
		clock, cell string
	}{
		{0, "+0s", "+0.0000s"},
		{63_412_518_204, "+63.412 518 204s", "+63.4125s"},
		{-1_500_000_000, "-1.5s", "-1.5000s"},
		{1_234_000_000_000, "+1 234s", "+1234.0000s"},
		{math.MaxInt64, "+9 223 372 036.854 775 807s", "+9223372036.8547s"},
		{math.MinInt64, "-9 223 372 036.854 775 808s", "-9223372036.8547s"},
	}
	for _, tc := range tests {
		if got := fmtTime(tc.ns); got != tc.clock {
			t.Errorf("fmtTime(%d) = %q, want %q", tc.ns, got, tc.clock)
		}
		if got := fmtShort(tc.ns); got != tc.cell {
			t.Errorf("fmtShort(%d) = %q, want %q", tc.ns, got, tc.cell)
		}
	}
}
