package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// fields reads the keys of one TOML table, reporting every problem against
// the field path prefix+key.
type fields struct {
	r      report
	prefix string // "default_link.", "peers[a].", ...
	tbl    map[string]any
}

func (f fields) path(key string) string { return f.prefix + key }

func (f fields) add(key, format string, args ...any) {
	f.r.add(f.path(key), format, args...)
}

// checkKeys reports every key of the table not in allowed.
func (f fields) checkKeys(allowed ...string) {
	for _, k := range slices.Sorted(maps.Keys(f.tbl)) {
		switch {
		case slices.Contains(allowed, k):
		case f.prefix != "" && slices.Contains(topKeys, k):
			// TOML puts every key after a [table] header into that table.
			f.add(k, "unknown key; %s is a top-level key: put it above the first [table] header", k)
		default:
			f.add(k, "%s", unknownKeyMsg(k, allowed))
		}
	}
}

// has reports whether key is present.
func (f fields) has(key string) bool {
	_, ok := f.tbl[key]
	return ok
}

// integer reads key as an integer in [lo, hi]. ok is false if the key is
// absent (reported when required) or invalid (always reported).
func (f fields) integer(key string, lo, hi int64, required bool) (v int64, ok bool) {
	raw, present := f.tbl[key]
	if !present {
		if required {
			f.add(key, "missing (required)")
		}
		return 0, false
	}
	v, isInt := raw.(int64)
	if !isInt {
		f.add(key, "must be an integer, got %s", describe(raw))
		return 0, false
	}
	if v < lo || v > hi {
		f.add(key, "%s", rangeMsg(v, lo, hi))
		return 0, false
	}
	return v, true
}

// str reads key as a non-empty string.
func (f fields) str(key string, required bool) (string, bool) {
	raw, present := f.tbl[key]
	if !present {
		if required {
			f.add(key, "missing (required)")
		}
		return "", false
	}
	s, isStr := raw.(string)
	if !isStr {
		f.add(key, "must be a string, got %s", describe(raw))
		return "", false
	}
	if s == "" {
		f.add(key, "must not be empty")
		return "", false
	}
	return s, true
}

// boolean reads key as a boolean; absent is false.
func (f fields) boolean(key string) (v, ok bool) {
	raw, present := f.tbl[key]
	if !present {
		return false, true
	}
	b, isBool := raw.(bool)
	if !isBool {
		f.add(key, "must be a boolean, got %s", describe(raw))
		return false, false
	}
	return b, true
}

// table reads key as a table; absent is an empty table.
func (f fields) table(key string, required bool) (map[string]any, bool) {
	raw, present := f.tbl[key]
	if !present {
		if required {
			f.add(key, "missing (required table)")
			return nil, false
		}
		return map[string]any{}, true
	}
	t, isTable := raw.(map[string]any)
	if !isTable {
		f.add(key, "must be a table, got %s", describe(raw))
		return nil, false
	}
	return t, true
}

// tableArray reads key as an array of tables ([[key]]). present is false
// when the key is absent; ok is false when it is not an array of tables.
func (f fields) tableArray(key string) (entries []map[string]any, present, ok bool) {
	raw, present := f.tbl[key]
	if !present {
		return nil, false, true
	}
	arr, isArr := raw.([]any)
	if !isArr {
		f.add(key, "must be an array of tables ([[%s]]), got %s", key, describe(raw))
		return nil, true, false
	}
	entries = make([]map[string]any, 0, len(arr))
	ok = true
	for i, e := range arr {
		t, isTable := e.(map[string]any)
		if !isTable {
			f.r.add(fmt.Sprintf("%s[%d]", f.path(key), i), "must be a table, got %s", describe(e))
			ok = false
			continue
		}
		entries = append(entries, t)
	}
	return entries, true, ok
}

// Describe names a decoded TOML value's type for an error message, with
// the value itself when it is short: string "x", integer 3, float 1.5 (…),
// an array of 2, a table. Other packages reading scenario-shaped TOML
// (property) use it so that their messages read like the loader's.
func Describe(v any) string { return describe(v) }

// describe is Describe.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) <= 40 {
			return fmt.Sprintf("string %q", x)
		}
		return "a string"
	case int64:
		return fmt.Sprintf("integer %d", x)
	case float64:
		return fmt.Sprintf("float %v (use an integer in the unit the key names)", v)
	case bool:
		return fmt.Sprintf("boolean %v", x)
	case time.Time:
		return "a date-time"
	case []any:
		return fmt.Sprintf("an array of %d", len(x))
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}

// unitSuffixes are the unit endings people reach for; the schema uses
// only _ns, _ppm, _bps and _bytes (and none on counts).
var unitSuffixes = []string{
	"_ns", "_us", "_ms", "_s", "_sec", "_secs", "_seconds", "_millis", "_micros", "_nanos",
	"_ppm", "_pct", "_percent", "_bps", "_kbps", "_mbps", "_gbps", "_bytes_per_sec",
}

var timeSuffixes = []string{"_us", "_ms", "_s", "_sec", "_secs", "_seconds", "_millis", "_micros", "_nanos"}

// sizeSuffixes are the size units people reach for instead of _bytes.
var sizeSuffixes = []string{"_b", "_byte", "_kb", "_kib", "_kbytes", "_mb", "_mib", "_mbytes", "_gb", "_gib"}

// sizeKey is the _bytes key that k, spelt in another size unit
// (send_buffer_kb), stands for, or "".
func sizeKey(k string) string {
	for _, s := range sizeSuffixes {
		if base, ok := strings.CutSuffix(k, s); ok && base != "" {
			return base + "_bytes"
		}
	}
	return ""
}

func stripUnit(k string) string {
	for _, s := range unitSuffixes {
		if base, ok := strings.CutSuffix(k, s); ok && base != "" {
			return base
		}
	}
	return k
}

// unknownKeyMsg explains an unknown key, naming the key the user most
// likely meant (latency_ms → latency_ns) or else the keys allowed here.
func unknownKeyMsg(k string, allowed []string) string {
	if want := sizeKey(k); want != "" && slices.Contains(allowed, want) {
		return fmt.Sprintf("unknown key; sizes are integer bytes: did you mean %s?", want)
	}
	base := stripUnit(k)
	for _, a := range allowed {
		if a != k && (stripUnit(a) == base || a == k+"_ns" || a == k+"_ppm" || a == k+"_bps") {
			switch {
			case strings.HasSuffix(a, "_ns") && hasAnySuffix(k, timeSuffixes):
				return fmt.Sprintf("unknown key; times are integer nanoseconds: did you mean %s?", a)
			case strings.HasSuffix(a, "_ppm"):
				return fmt.Sprintf("unknown key; probabilities are integer parts per million: did you mean %s?", a)
			case strings.HasSuffix(a, "_bps"):
				return fmt.Sprintf("unknown key; bandwidth is integer bytes per second: did you mean %s?", a)
			}
			return fmt.Sprintf("unknown key; did you mean %s?", a)
		}
	}
	if hasAnySuffix(k, timeSuffixes) {
		return "unknown key; times are integer nanoseconds and their keys end in _ns (allowed here: " + strings.Join(allowed, ", ") + ")"
	}
	return "unknown key (allowed here: " + strings.Join(allowed, ", ") + ")"
}

func hasAnySuffix(k string, suffixes []string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(k, s) {
			return true
		}
	}
	return false
}
