package natsort

import (
	"slices"
	"testing"
)

func TestSorted(t *testing.T) {
	got := Sorted([]string{"node10", "node2", "node1", "node100", "a", "node01", "b2c10", "b2c9", "fra", "orch"})
	want := []string{"a", "b2c9", "b2c10", "fra", "node01", "node1", "node2", "node10", "node100", "orch"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
}

func FuzzCompare(f *testing.F) {
	f.Add("node1", "node10")
	f.Add("x01", "x1")
	f.Fuzz(func(t *testing.T, a, b string) {
		if Compare(a, b) != -Compare(b, a) {
			t.Fatalf("%q %q not antisymmetric", a, b)
		}
		if (Compare(a, b) == 0) != (a == b) {
			t.Fatalf("%q %q: equal only when identical", a, b)
		}
	})
}
