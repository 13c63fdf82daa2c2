package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"orch", `string "orch"`},
		{strings.Repeat("x", 41), "a string"},
		{int64(-3), "integer -3"},
		{1.5, "float 1.5 (use an integer in the unit the key names)"},
		{4e6, "float 4e+06 (use an integer in the unit the key names)"},
		{true, "boolean true"},
		{time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "a date-time"},
		{[]any{}, "an array of 0"},
		{[]any{int64(2), int64(3), int64(4)}, "an array of 3"},
		{map[string]any{"a": int64(1)}, "a table"},
		{int32(7), "a int32"},
	} {
		if got := Describe(tc.v); got != tc.want {
			t.Errorf("Describe(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
