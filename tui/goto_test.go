package tui

import "testing"

func TestParseGoto(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind jobKind
		n    int64
	}{
		{"18211", jobGotoStep, 18211},
		{"18_211", jobGotoStep, 18211},
		{"step=5", jobGotoStep, 5},
		{"12.5s", jobGotoTime, 12_500_000_000},
		{"+3s", jobGotoTime, 3_000_000_000},
		{"time=7", jobGotoTime, 7},
		{"250ms", jobGotoTime, 250_000_000},
	} {
		j, err := parseGoto(tc.in)
		if err != nil || j.kind != tc.kind || j.target != tc.n {
			t.Errorf("%q: %+v %v", tc.in, j, err)
		}
	}
	for _, bad := range []string{"", "x", "-5", "12.5", "1e3s", "step=-1"} {
		if _, err := parseGoto(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzParseGoto(f *testing.F) {
	for _, s := range []string{"12", "12.5s", "step=3", "time=4", "1_000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		j, err := parseGoto(s)
		if err == nil && j.target < 0 {
			t.Fatalf("%q: negative target %d", s, j.target)
		}
	})
}
