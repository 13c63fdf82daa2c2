package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

const listUsage = `usage: detsim list

Lists the embedded scenario library: each scenario's name (what SCENARIO
accepts), its "# expect:" header (pass-now, fail-until-fix,
sensitivity-study) and the first line of its description.
`

func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if len(pos) > 0 {
		return usageErrIn(stderr, "list", "takes no arguments, got %s", strings.Join(pos, " "))
	}
	reg := builtin.Registry()
	type row struct{ name, expect, about string }
	var rows []row
	nameW, expectW := 0, 0
	for _, name := range scenarios.LibraryNames(reg) {
		r := row{name: name, expect: "(none)"}
		if sc, err := scenarios.LoadLibrary(name, reg); err != nil {
			r.expect = "(does not load)"
		} else if sc.Expect != "" {
			r.expect = sc.Expect
		}
		data, _ := scenarios.ReadLibrary(reg, name+".toml") // listed, so present
		r.about = firstProseLine(data)
		rows = append(rows, r)
		nameW, expectW = max(nameW, len(r.name)), max(expectW, len(r.expect))
	}
	for _, r := range rows {
		fmt.Fprintln(stdout, strings.TrimRight(fmt.Sprintf("%-*s  %-*s  %s", nameW, r.name, expectW, r.expect, r.about), " "))
	}
	return exitOK
}

// firstProseLine is the first line of a scenario's description: the first
// non-empty line of its leading comment block that is not the
// "# expect:" header.
func firstProseLine(data []byte) string {
	started := false
	for raw := range bytes.Lines(data) {
		line := strings.TrimSpace(string(raw))
		if line == "" && !started {
			continue
		}
		text, ok := strings.CutPrefix(line, "#")
		if !ok {
			break
		}
		started = true
		text = strings.TrimSpace(text)
		if text != "" && !strings.HasPrefix(text, "expect:") {
			return text
		}
	}
	return ""
}
