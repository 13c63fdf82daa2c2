package shrink

import (
	"bytes"
	"errors"

	"github.com/BurntSushi/toml"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
)

// tree is a scenario file as a TOML tree: tables are map[string]any,
// arrays (of tables too) []any.
type tree = map[string]any

// decode reads a scenario's merged TOML into a tree.
func decode(data []byte) (tree, error) { return scenarios.DecodeTree(data) }

// clone deep-copies a tree value.
func clone(v any) any { return scenarios.CloneTree(v) }

// encode renders a tree as a scenario file, keys sorted.
func encode(t tree) []byte {
	var buf bytes.Buffer
	enc := toml.NewEncoder(&buf)
	enc.Indent = ""
	if err := enc.Encode(t); err != nil {
		// NB: every tree here is a decoded scenario with values removed or
		// lowered; an encoder failure is a bug in this package.
		panic("shrink: encoding a candidate: " + err.Error())
	}
	return buf.Bytes()
}

// parse validates a candidate.
func parse(data []byte, reg *hosts.Registry) (*scenarios.Scenario, error) {
	return scenarios.Parse("candidate.toml", data, reg, func(string) ([]byte, error) {
		return nil, errors.New("a merged scenario extends nothing")
	})
}

// list returns t[key] as a list of tables (nil when absent).
func list(t tree, key string) []any {
	l, _ := t[key].([]any)
	return l
}

// table returns the i-th table of t[key].
func table(t tree, key string, i int) map[string]any {
	m, _ := list(t, key)[i].(map[string]any)
	return m
}

// setList stores l as t[key], deleting the key for an empty list except
// for links, where no list means a full mesh: an empty list stays.
func setList(t tree, key string, l []any) {
	if len(l) == 0 && key != "links" {
		delete(t, key)
		return
	}
	t[key] = l
}

func str(v any) string { s, _ := v.(string); return s }

func integer(v any) (int64, bool) { n, ok := v.(int64); return n, ok }
