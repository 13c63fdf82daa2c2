package scenarios

import (
	"github.com/detsim/detsim/hosts"
)

// ParseTree is ParseEncoded without the file: the scenario whose file
// is the TOML encoding of tree, built from tree alone. A sweep judges
// most of its seeds without writing anything that names their file, and
// encoding each seed's file only to hash it was a tenth of a gossip_flap
// seed (docs/BENCHMARKS.md, "A sweep does only what a seed needs").
//
// The scenario is the one ParseEncoded makes of the file but for
// SourceSHA256, which is zero: no file was written to hash. Expect is
// "", as the encoder writes no comment. The two checks Parse makes of
// the bytes themselves, their size (MaxFileBytes) and their nesting
// (CheckNesting), are made of a bound on what the encoder would write
// (withinFileLimits); ok is false when that bound does not settle them,
// or when tree holds a value ParseEncoded does not take, and the caller
// encodes tree and calls ParseEncoded. property.TestScenarioWithoutFile
// holds every library property's seeds to ParseEncoded's scenarios.
func ParseTree(file string, tree map[string]any, reg *hosts.Registry) (sc *Scenario, ok bool, err error) {
	decoded, ok := Decoded(tree)
	if !ok || !withinFileLimits(decoded) {
		return nil, false, nil
	}
	sc, err = parse(file, nil, decoded, true, reg, noExtends)
	return sc, true, err
}

// withinFileLimits reports whether the TOML encoding of tree, a tree
// as Decoded returns it, is surely at most MaxFileBytes long and nests
// within what CheckNesting allows. It errs only towards false.
//
// The encoder (indent "") writes a table as a header line holding its
// whole dotted key, "[a.b]" or "[[a.b]]", then a line "k = v" for each
// value that is not a table; an array that is not all tables, and every
// table inside one, it writes inline, "[v, v]" and "{k = v, k = v}". A
// string, key or value, takes at most six bytes a byte (a control byte
// is written \uXXXX) and two quotes; a number, bool, nan or inf at most
// 32 bytes. fileBound charges every table, key and array element the
// bytes of its whole path again and eight bytes of punctuation, more
// than any of the encoder's layouts spends.
//
// For CheckNesting: brackets nest at most one deeper than the tree
// ("[[" of a header at depth one), and a line's dots outside strings
// are those of one header's key (one fewer than the tree is deep) or
// the decimal points of the floats written inline on it; a key with a
// dot in it is quoted.
func withinFileLimits(tree map[string]any) bool {
	depth, floats := shape(tree)
	if depth+1 > MaxNesting || depth+floats > MaxNesting {
		return false
	}
	return fileBound(tree, 0, MaxFileBytes+1) <= MaxFileBytes
}

// shape returns how deeply v's tables and arrays nest (a scalar is 0)
// and how many float64 values it holds.
func shape(v any) (depth, floats int) {
	switch x := v.(type) {
	case float64:
		return 0, 1
	case map[string]any:
		for _, e := range x { //detlint:allow maprange a maximum and a sum, the same in any order
			d, f := shape(e)
			depth, floats = max(depth, d), floats+f
		}
		return depth + 1, floats
	case []any:
		for _, e := range x {
			d, f := shape(e)
			depth, floats = max(depth, d), floats+f
		}
		return depth + 1, floats
	}
	return 0, 0
}

// fileBound is a bound on the bytes the encoder writes for v, a value
// whose dotted key takes path bytes; it stops counting once the bound
// reaches limit.
func fileBound(v any, path, limit int) int {
	if path >= limit {
		return path // and no sum can overflow an int on a 32-bit machine
	}
	switch x := v.(type) {
	case string:
		return quotedBound(x)
	case map[string]any:
		n := path + 8
		for k, e := range x { //detlint:allow maprange a sum, the same in any order
			kb := quotedBound(k) + 1
			n += path + kb + 8 + fileBound(e, path+kb, limit)
			if n >= limit {
				return n
			}
		}
		return n
	case []any:
		n := 8
		for _, e := range x {
			n += path + 8 + fileBound(e, path, limit)
			if n >= limit {
				return n
			}
		}
		return n
	}
	return 32
}

// quotedBound bounds s written as a TOML basic string (or a quoted key).
func quotedBound(s string) int { return 6*len(s) + 2 }
