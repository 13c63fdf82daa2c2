package kindcfg

import (
	"reflect"
	"strings"
	"testing"
)

// errs writes a reader's errors one a line, as a kind's Validate reports
// them.
func errs(r *Reader) string {
	var b strings.Builder
	for _, e := range r.Errs {
		b.WriteString(e.Field + ": " + e.Msg + "\n")
	}
	return b.String()
}

// TestReader_Values: every reader returns the value present, its default
// when absent, and its default (with one error naming the full path)
// when the value has the wrong type or is out of range.
func TestReader_Values(t *testing.T) {
	cfg := map[string]any{
		"n": int64(5), "big": int64(99), "s": "x", "mode": "fast", "odd": "slow", "on": true,
		"strs": []any{"a", int64(1), "b"}, "ints": []any{int64(1), int64(50), "z"},
		"tbl":    map[string]any{"k": int64(1)},
		"tbls":   []any{map[string]any{"a": int64(1)}, "no"},
		"labels": map[string]any{"b": "2", "a": "1", "c": int64(3)},
		"wrong":  int64(1),
	}
	r := &Reader{}
	c := Root(r, cfg)
	got := []any{
		c.Int("n", 1, 0, 10), c.Int("absent", 7, 0, 10), c.Int("big", 7, 0, 10), c.Int("s", 7, 0, 10),
		c.Str("s", "d"), c.Str("absent", "d"), c.Str("n", "d"),
		c.OneOf("mode", "slow", []string{"fast", "slow"}), c.OneOf("odd", "fast", []string{"fast"}), c.OneOf("absent", "fast", []string{"fast"}),
		c.Bool("on"), c.Bool("absent"), c.Bool("s"),
		c.Strs("strs"), c.Strs("absent"), c.Strs("s"),
		c.Ints("ints", 0, 10), c.Ints("s", 0, 10),
		c.StrMap("labels"), c.StrMap("s"),
		c.Has("n"), c.Has("absent"),
	}
	want := []any{
		int64(5), int64(7), int64(7), int64(7),
		"x", "d", "d",
		"fast", "fast", "fast",
		true, false, false,
		[]string{"a", "b"}, []string(nil), []string(nil),
		[]int64{1}, []int64(nil),
		[]Pair{{"a", "1"}, {"b", "2"}}, []Pair(nil),
		true, false,
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("read %d = %#v, want %#v", i, got[i], want[i])
		}
	}
	if sub, ok := c.Table("tbl"); !ok || sub.Int("k", 0, 0, 9) != 1 || sub.Path("k") != "kind_config.tbl.k" {
		t.Errorf("Table(tbl) = %+v, %v", sub, ok)
	}
	if _, ok := c.Table("absent"); ok {
		t.Error("an absent table read as present")
	}
	c.Table("n")
	ts := c.Tables("tbls")
	if len(ts) != 1 || ts[0].Str("a", "") != "" {
		t.Errorf("Tables(tbls) = %+v", ts)
	}
	c.Tables("n")
	c.Keys("n", "big", "s", "mode", "odd", "on", "strs", "ints", "tbl", "tbls", "labels")
	const wantErrs = `kind_config.big: must be in [0, 10], got 99
kind_config.s: must be an integer, got a string
kind_config.n: must be a string, got an integer
kind_config.odd: unknown value "slow" (one of: fast)
kind_config.s: must be a boolean, got a string
kind_config.strs[1]: must be a string, got an integer
kind_config.s: must be an array of strings, got a string
kind_config.ints[1]: must be an integer in [0, 10], got an integer
kind_config.ints[2]: must be an integer in [0, 10], got a string
kind_config.s: must be an array of integers, got a string
kind_config.labels.c: must be a string, got an integer
kind_config.s: must be a table, got a string
kind_config.n: must be a table, got an integer
kind_config.tbls[1]: must be a table, got a string
kind_config.tbls[0].a: must be a string, got an integer
kind_config.n: must be an array of tables, got an integer
kind_config.wrong: unknown key (accepted: n, big, s, mode, odd, on, strs, ints, tbl, tbls, labels)
`
	if g := errs(r); g != wantErrs {
		t.Errorf("errors:\n%s\nwant:\n%s", g, wantErrs)
	}
}

// TestClone: a clone shares nothing mutable with its source (a fault
// catalog edits its copy and the scenario's config stays as loaded),
// and arrays of tables come back as []any whichever way they went in.
func TestClone(t *testing.T) {
	src := map[string]any{
		"n":      int64(1),
		"tbl":    map[string]any{"k": []any{int64(1), map[string]any{"x": "y"}}},
		"script": []map[string]any{{"fault": "timeout"}},
	}
	c := Clone(src)
	want := map[string]any{
		"n":      int64(1),
		"tbl":    map[string]any{"k": []any{int64(1), map[string]any{"x": "y"}}},
		"script": []any{map[string]any{"fault": "timeout"}},
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("Clone = %#v\nwant %#v", c, want)
	}
	c["tbl"].(map[string]any)["k"].([]any)[1].(map[string]any)["x"] = "changed"
	c["script"].([]any)[0].(map[string]any)["fault"] = "changed"
	c["n"] = int64(2)
	if src["tbl"].(map[string]any)["k"].([]any)[1].(map[string]any)["x"] != "y" ||
		src["script"].([]map[string]any)[0]["fault"] != "timeout" || src["n"] != int64(1) {
		t.Fatalf("editing the clone changed the source: %#v", src)
	}
}
