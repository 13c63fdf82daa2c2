package verdict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Marshal renders verdicts.json (spec §10.2): an array in the order
// given, two-space indented, with a trailing newline. encoding/json writes
// map keys sorted, so the same verdicts always give the same bytes; HTML
// escaping is off so names and reasons read as written.
func Marshal(vs []Verdict) []byte {
	out := make([]Verdict, len(vs))
	for i, v := range vs {
		if v.Parameters == nil {
			v.Parameters = map[string]any{}
		}
		if v.Evidence == nil {
			v.Evidence = []Evidence{}
		}
		out[i] = v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		// Only a parameter value the TOML decoder never produces (a NaN,
		// a func) fails to encode; write every parameter as text instead.
		for i := range out {
			out[i].Parameters = paramsAsText(out[i].Parameters)
		}
		buf.Reset()
		_ = enc.Encode(out) // strings, integers and evidence always encode
	}
	return buf.Bytes()
}

func paramsAsText(p map[string]any) map[string]any {
	out := make(map[string]any, len(p))
	for _, k := range slices.Sorted(maps.Keys(p)) {
		out[k] = fmt.Sprint(p[k])
	}
	return out
}
