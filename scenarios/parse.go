package scenarios

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/detsim/detsim/hosts"
)

// Parse decodes, merges and validates the scenario file named file whose
// bytes are data. readFile fetches the file a [base] extends names; the
// name is slash-separated and, unless absolute, joined to the directory of
// the file that extends it. Parse returns the validated scenario, or nil
// and an Errors holding every problem found. It never panics and never
// reads anything but through readFile.
func Parse(file string, data []byte, reg *hosts.Registry, readFile func(path string) ([]byte, error)) (*Scenario, error) {
	return parse(file, data, nil, false, reg, readFile)
}

// ParseEncoded is Parse of data, the TOML encoding of tree, taking a copy
// of tree for what decoding data gives instead of decoding it: a sweep
// builds each seed's scenario as a tree, and decoding the file it
// encoded from that tree was a seventh of a gossip_flap seed
// (docs/BENCHMARKS.md, "A sweep does only what a seed needs"). tree may
// hold only what the TOML encoder writes as it reads back: tables as
// map[string]any, arrays as []any, []map[string]any, []string or
// []int64, and string, bool, int64 and float64 values; ok is false if it
// holds anything else, and the caller parses data instead.
// property.TestScenario_TreeIsWhatItsTOMLDecodesTo holds every library
// property's trees to it.
func ParseEncoded(file string, data []byte, tree map[string]any, reg *hosts.Registry) (sc *Scenario, ok bool, err error) {
	decoded, ok := Decoded(tree)
	if !ok {
		return nil, false, nil
	}
	sc, err = parse(file, data, decoded, false, reg, noExtends)
	return sc, true, err
}

// noExtends is the readFile of a generated scenario's parse.
func noExtends(string) ([]byte, error) {
	return nil, errors.New("a generated scenario extends nothing")
}

// Decoded returns a deep copy of tree as DecodeTree(the TOML encoding of
// tree) reads it back, or false if tree holds a value ParseEncoded does
// not take. Like the encoder it leaves out nil values.
func Decoded(tree map[string]any) (map[string]any, bool) {
	v, ok := decoded(tree)
	if !ok {
		return nil, false
	}
	return v.(map[string]any), true
}

func decoded(v any) (any, bool) {
	switch x := v.(type) {
	case string, bool, int64, float64:
		return x, true
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x { //detlint:allow maprange a map copied into a map; any element that cannot be read fails the whole
			if e == nil {
				continue
			}
			d, ok := decoded(e)
			if !ok {
				return nil, false
			}
			if d != nil {
				out[k] = d
			}
		}
		return out, true
	case []any:
		return decodedList(x)
	case []map[string]any:
		if x == nil {
			return nil, true
		}
		return decodedList(x)
	case []string:
		if x == nil {
			return nil, true
		}
		return decodedList(x)
	case []int64:
		if x == nil {
			return nil, true
		}
		return decodedList(x)
	}
	return nil, false
}

func decodedList[E any](x []E) (any, bool) {
	if x == nil {
		return nil, true
	}
	out := make([]any, len(x))
	for i, e := range x {
		d, ok := decoded(any(e))
		if !ok || d == nil {
			return nil, false
		}
		out[i] = d
	}
	return out, true
}

// parse is Parse; tree, when set, is what decoding data gives. noFile
// says there is no data (ParseTree): tree is the whole file, whose
// encoding the caller knows to be within MaxFileBytes and MaxNesting,
// and the scenario has no SourceSHA256.
func parse(file string, data []byte, tree map[string]any, noFile bool, reg *hosts.Registry, readFile func(path string) ([]byte, error)) (*Scenario, error) {
	var errs Errors
	top := filepath.ToSlash(file)
	p := &parser{errs: &errs, readFile: readFile, top: top, decoded: tree, noFile: noFile}
	tree = p.load(top, data, nil)
	expect := ""
	if !noFile {
		expect = parseExpect(report{file: top, errs: &errs}, data)
	}
	if tree == nil {
		return nil, errs.sorted()
	}
	s := validate(report{file: top, errs: &errs}, tree, reg)
	if len(errs) > 0 {
		return nil, errs.sorted()
	}
	s.Expect = expect
	s.Path = file
	if !noFile {
		s.SourceSHA256 = sha256.Sum256(data)
	}
	s.merged = tree
	return s, nil
}

// parser loads one chain of extends.
type parser struct {
	errs     *Errors
	readFile func(string) ([]byte, error)
	top      string                      // the file run, which merged-scenario errors name
	counts   [len(chainLimits)]listCount // per chainLimits entry, over the files read so far
	// decoded, when set, is the top file's data decoded (ParseEncoded),
	// or the top file itself when noFile is set (ParseTree).
	decoded map[string]any
	noFile  bool
}

// load decodes the file at name (slash-separated) and everything it
// extends, and returns the merged tree without [base], or nil if any file
// of the chain could not be read or decoded. chain holds the files that
// (transitively) extend this one, for cycle detection.
func (p *parser) load(name string, data []byte, chain []string) map[string]any {
	r := report{file: name, errs: p.errs}
	top := len(chain) == 0
	// A file that was never written was checked as a tree (ParseTree).
	if !(p.noFile && top) {
		if len(data) > MaxFileBytes {
			r.add("", "file is %d bytes; a scenario may be at most %d", len(data), MaxFileBytes)
			return nil
		}
		if err := CheckNesting(data); err != nil {
			r.add("", "%v", err)
			return nil
		}
	}
	var tree map[string]any
	if p.decoded != nil && top {
		tree = p.decoded
	} else {
		var raw map[string]any
		if _, err := toml.Decode(string(data), &raw); err != nil {
			r.add("", "%s", syntaxMsg(err))
			return nil
		}
		tree = normalize(raw).(map[string]any)
	}
	if !p.inlineScriptFiles(r, name, tree) {
		return nil
	}
	nameAssertions(tree)
	if !p.withinLimits(name, tree) {
		return nil
	}

	base, present := tree["base"]
	delete(tree, "base")
	if !present {
		return tree
	}
	baseTbl, ok := base.(map[string]any)
	if !ok {
		r.add("base", "must be a table, got %s", describe(base))
		return nil
	}
	f := fields{r: r, prefix: "base.", tbl: baseTbl}
	f.checkKeys("extends")
	extends, ok := f.str("extends", false)
	if !ok {
		if f.has("extends") {
			return nil // invalid, reported: the parent is unknown
		}
		return tree
	}
	target := extends
	if !path.IsAbs(target) && !filepath.IsAbs(target) {
		target = path.Join(path.Dir(name), target)
	}
	chain = append(slices.Clone(chain), name)
	if slices.Contains(chain, target) {
		r.add("base.extends", "extends cycle: %s -> %s", strings.Join(chain, " -> "), target)
		return nil
	}
	// chain now holds this file and every file that extends it; target
	// would be one more. MaxExtendsDepth counts every file of the chain.
	if len(chain)+1 > MaxExtendsDepth {
		r.add("base.extends", "extends chain is longer than %d files", MaxExtendsDepth)
		return nil
	}
	if p.readFile == nil {
		r.add("base.extends", "cannot read %q: extends is not available here", target)
		return nil
	}
	parentData, err := p.readFile(target)
	if err != nil {
		r.add("base.extends", "cannot read %q: %v", target, err)
		return nil
	}
	parent := p.load(target, parentData, chain)
	if parent == nil {
		return nil
	}
	return mergeScenario(parent, tree)
}

// syntaxMsg renders a TOML decode error with its line and column.
func syntaxMsg(err error) string {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d, column %d: TOML syntax error: %s", pe.Position.Line, pe.Position.Col, pe.Message)
	}
	return "TOML syntax error: " + err.Error()
}

// DecodeTree decodes TOML into the tree shape the loader works on: tables
// are map[string]any and every array, of tables or not, is []any. It does
// no validation; tools that edit scenarios (shrink) use it.
func DecodeTree(data []byte) (map[string]any, error) {
	if err := CheckNesting(data); err != nil {
		return nil, err
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return nil, err
	}
	return normalize(raw).(map[string]any), nil
}

// normalize turns the decoder's []map[string]any (arrays of tables) into
// []any, so an array of tables and an inline array of inline tables read
// alike and the tree has one shape for every later step. It walks the
// tree as hosts.CloneTree does, alike in shape: this one rewrites it in
// place, CloneTree copies it.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			x[k] = normalize(x[k])
		}
		return x
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
		return x
	}
	return v
}

// nameAssertions writes the default name "<kind>#<index>" into every
// [[assertions]] entry of one file that has none, before that file is
// merged with what it extends, so the index is the entry's position in
// the file that declares it and merging by name is well defined.
func nameAssertions(tree map[string]any) {
	list, ok := tree["assertions"].([]any)
	if !ok {
		return
	}
	for i, e := range list {
		t, ok := e.(map[string]any)
		if !ok {
			continue
		}
		kind, ok := t["kind"].(string)
		if _, named := t["name"]; !named && ok {
			t["name"] = fmt.Sprintf("%s#%d", kind, i)
		}
	}
}

// Expectations a library scenario can declare in its "# expect:" header.
var expectations = []string{"pass-now", "fail-until-fix", "sensitivity-study"}

// parseExpect finds the "# expect: VALUE" line in the file's first comment
// block (the leading run of comment lines, blank lines before it
// skipped). Missing is "", an unknown value an error.
func parseExpect(r report, data []byte) string {
	found := ""
	seen := false
	started := false
	for raw := range bytes.Lines(data) {
		line := strings.TrimSpace(string(raw))
		if line == "" && !started {
			continue
		}
		comment, isComment := strings.CutPrefix(line, "#")
		if !isComment {
			break
		}
		started = true
		value, isExpect := strings.CutPrefix(strings.TrimSpace(comment), "expect:")
		if !isExpect {
			continue
		}
		value = strings.TrimSpace(value)
		switch {
		case seen:
			r.add("# expect", "declared twice in the header")
		case !slices.Contains(expectations, value):
			r.add("# expect", "unknown expectation %q (want one of: %s)", value, strings.Join(expectations, ", "))
		default:
			found = value
		}
		seen = true
	}
	return found
}
