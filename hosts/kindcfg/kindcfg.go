// Package kindcfg reads a host kind's kind_config (a decoded TOML tree of
// int64, string, bool, []any and map[string]any) into typed values,
// collecting every problem as a hosts.FieldError named by its path
// ("kind_config.script[2].fault.kind"), so a kind's Validate and New read
// the config through one definition.
package kindcfg

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
)

// Reader collects errors while reading a config.
type Reader struct{ Errs []hosts.FieldError }

// Add records a problem with field (a full path).
func (r *Reader) Add(field, format string, args ...any) {
	r.Errs = append(r.Errs, hosts.FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

// T is one table of the config and its path prefix ("kind_config.").
type T struct {
	R      *Reader
	Prefix string
	M      map[string]any
}

// Root is the kind_config table itself.
func Root(r *Reader, m map[string]any) T { return T{R: r, Prefix: "kind_config.", M: m} }

// Path names key inside t.
func (t T) Path(key string) string { return t.Prefix + key }

// Keys reports every key of t not in allowed.
func (t T) Keys(allowed ...string) {
	for _, k := range slices.Sorted(maps.Keys(t.M)) {
		if !slices.Contains(allowed, k) {
			t.R.Add(t.Path(k), "unknown key (accepted: %s)", strings.Join(allowed, ", "))
		}
	}
}

// Has reports whether key is present.
func (t T) Has(key string) bool { _, ok := t.M[key]; return ok }

// Int reads an integer in [lo, hi], def when absent.
func (t T) Int(key string, def, lo, hi int64) int64 {
	v, ok := t.M[key]
	if !ok {
		return def
	}
	n, isInt := v.(int64)
	switch {
	case !isInt:
		t.R.Add(t.Path(key), "must be an integer, got %s", describe(v))
		return def
	case n < lo || n > hi:
		t.R.Add(t.Path(key), "must be in [%d, %d], got %d", lo, hi, n)
		return def
	}
	return n
}

// Str reads a string, def when absent.
func (t T) Str(key, def string) string { return scalar(t, key, def, "a string") }

// OneOf reads a string that must be one of allowed, def when absent.
func (t T) OneOf(key, def string, allowed []string) string {
	s := t.Str(key, def)
	if t.Has(key) && !slices.Contains(allowed, s) {
		t.R.Add(t.Path(key), "unknown value %q (one of: %s)", s, strings.Join(allowed, ", "))
		return def
	}
	return s
}

// Bool reads a boolean, false when absent.
func (t T) Bool(key string) bool { return scalar(t, key, false, "a boolean") }

// scalar reads the value of type V at key (what names V in the problem
// a value of another type is): def when absent or of another type.
func scalar[V any](t T, key string, def V, what string) V {
	v, ok := t.M[key]
	if !ok {
		return def
	}
	x, isV := v.(V)
	if !isV {
		t.R.Add(t.Path(key), "must be %s, got %s", what, describe(v))
		return def
	}
	return x
}

// Strs reads an array of strings.
func (t T) Strs(key string) []string {
	return array(t, key, "strings", func(_ int, e any) (string, string) {
		s, isStr := e.(string)
		if !isStr {
			return "", "must be a string"
		}
		return s, ""
	})
}

// Ints reads an array of integers, each in [lo, hi].
func (t T) Ints(key string, lo, hi int64) []int64 {
	return array(t, key, "integers", func(_ int, e any) (int64, string) {
		n, isInt := e.(int64)
		if !isInt || n < lo || n > hi {
			return 0, fmt.Sprintf("must be an integer in [%d, %d]", lo, hi)
		}
		return n, ""
	})
}

// Table reads a sub-table.
func (t T) Table(key string) (T, bool) {
	v, ok := t.M[key]
	if !ok {
		return T{}, false
	}
	m, isTbl := v.(map[string]any)
	if !isTbl {
		t.R.Add(t.Path(key), "must be a table, got %s", describe(v))
		return T{}, false
	}
	return T{R: t.R, Prefix: t.Path(key) + ".", M: m}, true
}

// Tables reads an array of tables.
func (t T) Tables(key string) []T {
	return array(t, key, "tables", func(i int, e any) (T, string) {
		m, isTbl := e.(map[string]any)
		if !isTbl {
			return T{}, "must be a table"
		}
		return T{R: t.R, Prefix: fmt.Sprintf("%s[%d].", t.Path(key), i), M: m}, ""
	})
}

// array reads the array at key (an array of what) with elem, which
// returns each element read, or what is wrong with it: a missing key is
// no elements, and a value that is not an array, or an element elem
// refuses, is a problem at its path and is left out.
func array[E any](t T, key, what string, elem func(i int, e any) (E, string)) []E {
	v, ok := t.M[key]
	if !ok {
		return nil
	}
	arr, isArr := v.([]any)
	if !isArr {
		t.R.Add(t.Path(key), "must be an array of %s, got %s", what, describe(v))
		return nil
	}
	out := make([]E, 0, len(arr))
	for i, e := range arr {
		x, bad := elem(i, e)
		if bad != "" {
			t.R.Add(fmt.Sprintf("%s[%d]", t.Path(key), i), "%s, got %s", bad, describe(e))
			continue
		}
		out = append(out, x)
	}
	return out
}

// Pair is one entry of a string-to-string table.
type Pair struct{ Key, Value string }

// StrMap reads a table of strings, sorted by key.
func (t T) StrMap(key string) []Pair {
	sub, ok := t.Table(key)
	if !ok {
		return nil
	}
	var out []Pair
	for _, k := range slices.Sorted(maps.Keys(sub.M)) {
		s, isStr := sub.M[k].(string)
		if !isStr {
			t.R.Add(sub.Path(k), "must be a string, got %s", describe(sub.M[k]))
			continue
		}
		out = append(out, Pair{k, s})
	}
	return out
}

// describe names a TOML value's type as swim's config reader does its own,
// alike in shape: swim's reader is its own package's and has its own
// wording.
func describe(v any) string {
	switch v.(type) {
	case int64:
		return "an integer"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

// Clone deep-copies a kind_config (maps and arrays; scalars are shared,
// being immutable), so a fault catalog's Apply can edit its copy.
func Clone(m map[string]any) map[string]any {
	out, _ := hosts.CloneTree(m).(map[string]any)
	return out
}

// TableList is the tables of the array at config[key], the maps
// themselves (not copies), so a fault catalog's Apply edits its Clone's
// entries in place; an element that is not a table, or a key that is
// not an array, is left out.
func TableList(config map[string]any, key string) []map[string]any {
	if ms, ok := config[key].([]map[string]any); ok {
		return ms
	}
	arr, _ := config[key].([]any)
	out := make([]map[string]any, 0, len(arr))
	for _, e := range arr {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
