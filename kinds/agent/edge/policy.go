package edge

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/detsim/detsim/kinds/agent/provider"
)

// argPolicy is what arguments an allowed program may take when the
// agent names them (a tool use whose script served no argv).
type argPolicy string

const (
	// argPaths, the default, takes any argument that names no file
	// outside the tool directory: nothing absolute, nothing that climbs
	// out with "..", also after a flag's "=" or a list's ",".
	argPaths argPolicy = "paths"
	// argAny takes any argument: for a program the operator knows
	// reads no file it is told to (echo).
	argAny argPolicy = "any"
	// argNone takes no argument at all.
	argNone argPolicy = "none"
)

// parseAllow reads --allow's entries, PROGRAM or PROGRAM:POLICY.
func parseAllow(entries []string) (map[string]argPolicy, error) {
	out := map[string]argPolicy{}
	for _, e := range entries {
		prog, pol, has := strings.Cut(e, ":")
		p := argPolicy(pol)
		if !has {
			p = argPaths
		}
		switch {
		case prog == "":
			return nil, fmt.Errorf("edge: --allow %q: no program", e)
		case p != argPaths && p != argAny && p != argNone:
			return nil, fmt.Errorf("edge: --allow %q: argument policy %q: want paths (the default), any or none", e, pol)
		}
		out[prog] = p
	}
	return out, nil
}

// servedArgv is the argv a script's tool use binds its run to: the
// "argv" array of its input, when it has one (nil when it names none,
// and the agent's own argv is judged by the allow-list's policy).
func servedArgv(u provider.ToolUse) []string {
	var in struct {
		Argv []string `json:"argv"`
	}
	if json.Unmarshal([]byte(strings.Join(u.Args, "")), &in) != nil {
		return nil
	}
	return in.Argv
}

// permitted says why argv may not run as the tool use whose script
// served bound ("" when it may): a served argv is the only one that
// runs; otherwise argv[0] must be on the allow-list and its arguments
// pass the program's policy.
func (e *Edge) permitted(argv, bound []string) string {
	if len(argv) == 0 {
		return "" // no command: the effect's output alone
	}
	if bound != nil && !slices.Equal(argv, bound) {
		return fmt.Sprintf("argv %q is not the %q the script served for this tool use", argv, bound)
	}
	pol, ok := e.allow[argv[0]]
	if !ok {
		return fmt.Sprintf("command %q is not on the edge's allow-list (--allow): %v", argv[0], e.opts.Allow)
	}
	if bound != nil {
		return "" // the script's own command, verbatim
	}
	switch pol {
	case argNone:
		if len(argv) > 1 {
			return fmt.Sprintf("command %q takes no arguments here (--allow %s:none)", argv[0], argv[0])
		}
	case argPaths:
		for _, a := range argv[1:] {
			if p := outsidePath(a); p != "" {
				return fmt.Sprintf("argument %q of %q names %q, outside the tool directory (--allow %s:paths; :any lifts it)", a, argv[0], p, argv[0])
			}
		}
	}
	return ""
}

// outsidePath returns the part of arg that names a path outside the
// tool directory: absolute, or climbing out with "..", whether it is
// the whole argument or a flag's value (--file=/etc/x, -f/etc/x) or an
// item of a list (a,/etc/x); "" when there is none.
func outsidePath(arg string) string {
	parts := strings.FieldsFunc(arg, func(r rune) bool { return r == '=' || r == ',' || r == ':' })
	if strings.HasPrefix(arg, "-") && len(arg) > 2 && arg[1] != '-' {
		parts = append(parts, arg[2:]) // -f/etc/x
	}
	for _, p := range parts {
		if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") {
			return p
		}
		if c := filepath.Clean(p); c == ".." || strings.HasPrefix(c, "../") {
			return p
		}
	}
	return ""
}
