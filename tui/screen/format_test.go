package screen

import (
	"math"
	"testing"
)

// The log and queue columns group the clock as the header does (one
// number format on every pane), cut to a tenth of a millisecond.
func TestTimeColumns(t *testing.T) {
	tests := []struct {
		ns          int64
		clock, cell string
	}{
		{0, "+0s", "+0.000 0s"},
		{63_412_518_204, "+63.412 518 204s", "+63.412 5s"},
		{-1_500_000_000, "-1.5s", "-1.500 0s"},
		{1_234_000_000_000, "+1 234s", "+1 234.000 0s"},
		{math.MaxInt64, "+9 223 372 036.854 775 807s", "+9 223 372 036.854 7s"},
		{math.MinInt64, "-9 223 372 036.854 775 808s", "-9 223 372 036.854 7s"},
	}
	for _, tc := range tests {
		if got := FmtTime(tc.ns); got != tc.clock {
			t.Errorf("FmtTime(%d) = %q, want %q", tc.ns, got, tc.clock)
		}
		if got := fmtShort(tc.ns); got != tc.cell {
			t.Errorf("fmtShort(%d) = %q, want %q", tc.ns, got, tc.cell)
		}
	}
}

func TestGroupInteger(t *testing.T) {
	for in, want := range map[string]string{"0": "0", "999": "999", "1000": "1 000", "-1426638": "-1 426 638", "1.5": "1.5", "1e9": "1e9", "": ""} {
		if got := groupInteger(in); got != want {
			t.Errorf("groupInteger(%q) = %q, want %q", in, got, want)
		}
	}
}
