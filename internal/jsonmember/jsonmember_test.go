package jsonmember

import "testing"

func TestFindStringInt(t *testing.T) {
	obj := []byte(`{"type":"message_sent","peer":"sgp","via":["a","b"],"bytes":1430,"seq":-2,"ok":true}`)
	for key, want := range map[string]string{`type`: `"message_sent"`, `peer`: `"sgp"`, `via`: `["a","b"]`, `bytes`: `1430`, `seq`: `-2`, `ok`: `true`} {
		if got, ok := Find(obj, key); !ok || string(got) != want {
			t.Errorf("Find %s: %q %v, want %q", key, got, ok, want)
		}
	}
	if _, ok := Find(obj, "colour"); ok {
		t.Error("found an absent member")
	}
	if String(obj, "peer") != "sgp" || String(obj, "bytes") != "1430" || String(obj, "colour") != "" {
		t.Errorf("String: %q %q", String(obj, "peer"), String(obj, "bytes"))
	}
	for raw, want := range map[string]int64{"1430": 1430, "-2": -2, "0": 0} {
		if n, ok := Int([]byte(raw)); !ok || n != want {
			t.Errorf("Int(%s) = %d %v", raw, n, ok)
		}
	}
	for _, bad := range []string{"", "-", "1.5", "1e3", `"7"`, "1234567890123456789"} {
		if _, ok := Int([]byte(bad)); ok {
			t.Errorf("Int(%q) accepted", bad)
		}
	}
}
