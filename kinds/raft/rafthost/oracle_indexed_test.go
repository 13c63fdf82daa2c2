package rafthost

import "testing"

// TestIndexed_IsAMap: indexed answers as a map would, near and far
// indexes alike, and a far index (a bundle's own, not a log's) does not
// size the slice; a clone is independent.
func TestIndexed_IsAMap(t *testing.T) {
	var x indexed[string]
	want := map[uint64]string{}
	for _, i := range []uint64{1, 2, 5, 3, 1 << 40, 70000, 1 << 63, 0} {
		if _, ok := x.get(i); ok {
			t.Fatalf("%d set before put", i)
		}
		x.put(i, "v")
		want[i] = "v"
	}
	for i := range uint64(100) {
		v, ok := x.get(i)
		if w, wok := want[i]; ok != wok || v != w {
			t.Errorf("get(%d) = %q, %v; a map says %q, %v", i, v, ok, w, wok)
		}
	}
	for _, i := range []uint64{1 << 40, 1 << 63, 70000} {
		if v, ok := x.get(i); !ok || v != "v" {
			t.Errorf("get(%d) = %q, %v", i, v, ok)
		}
	}
	if x.len() != len(want) || len(x.at) > 1<<17 {
		t.Errorf("len %d (want %d), slice %d", x.len(), len(want), len(x.at))
	}
	c := x.clone()
	c.put(9, "c")
	if _, ok := x.get(9); ok {
		t.Error("a clone's put changed the original")
	}
}
