package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
)

const listUsage = `usage: detsim list

Lists the embedded scenario library: each scenario's name (what SCENARIO
accepts), its "# expect:" header (pass-now, fail-until-fix,
sensitivity-study) and the first line of its description.
`

func cmdList(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if len(pos) > 0 {
		return usageErrIn(stderr, "list", "takes no arguments, got %s", strings.Join(pos, " "))
	}
	type row struct{ name, expect, about string }
	var rows []row
	nameW, expectW := 0, 0
	for _, name := range scenarios.LibraryNames(reg) {
		r := row{name: name, expect: "(none)"}
		if sc, err := scenarios.LoadLibrary(name, reg); forOtherKinds(err) {
			continue
		} else if err != nil {
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

// forOtherKinds says a library scenario's load failed because it names
// a host kind this binary was not built with: the core library's SWIM,
// raft and agent scenarios in a binary of outside kinds alone
// (cli.Main). list and check leave such a scenario out rather than call
// it broken; naming it as SCENARIO still says why it does not load.
func forOtherKinds(err error) bool {
	var es scenarios.Errors
	if !errors.As(err, &es) {
		return false
	}
	return slices.ContainsFunc(es, func(e scenarios.Error) bool {
		return strings.HasSuffix(e.Field, "kind") && strings.HasPrefix(e.Msg, "unknown host kind")
	})
}
