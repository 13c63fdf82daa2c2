package suggest

import "testing"

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"sweep", "sweep", 0},
		{"swep", "sweep", 1}, {"sewep", "sweep", 1}, {"sweeep", "sweep", 1},
		{"shrnk", "shrink", 1}, {"chekc", "check", 1}, {"ls", "list", 2},
		{"kitten", "sitting", 3}, {"ca", "abc", 3},
	} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if got := Distance(c.b, c.a); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.d)
		}
	}
}

// Near allows one edit in short names and two in longer ones.
func TestNear(t *testing.T) {
	for _, c := range []struct{ s, want string }{
		{"fr", "fra"}, {"frx", "fra"}, {"xyz", ""}, {"orhc", "orch"}, {"sgpp", "sgp"},
		{"subjetc", "subject"}, {"incarnatoin", "incarnation"}, {"tyep", "type"},
	} {
		if got := Near(c.s, []string{"fra", "orch", "sgp", "subject", "incarnation", "type"}); got != c.want {
			t.Errorf("Near(%q) = %q, want %q", c.s, got, c.want)
		}
	}
}
