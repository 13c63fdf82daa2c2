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
sensitivity-study) and the first sentence of its description.
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
		r.about = firstSentence(data)
		rows = append(rows, r)
		nameW, expectW = max(nameW, len(r.name)), max(expectW, len(r.expect))
	}
	for _, r := range rows {
		fmt.Fprintln(stdout, strings.TrimRight(fmt.Sprintf("%-*s  %-*s  %s", nameW, r.name, expectW, r.expect, r.about), " "))
	}
	return exitOK
}

// maxAbout bounds a listed description: a longer first sentence ends at
// the last word that fits, marked "…", so a row stays one line.
const maxAbout = 160

// firstSentence is the first sentence of a scenario's description: the
// first paragraph of its leading comment block that is not the
// "# expect:" header, its lines joined, up to the first full stop that
// ends a word, and at most maxAbout bytes (cut at a word, marked "…").
// The first line alone stopped mid-sentence without saying so (issue
// 33); a paragraph without a full stop is given whole.
func firstSentence(data []byte) string {
	var para []string
	for raw := range bytes.Lines(data) {
		line := strings.TrimSpace(string(raw))
		if line == "" && len(para) == 0 {
			continue
		}
		text, ok := strings.CutPrefix(line, "#")
		if !ok {
			break
		}
		text = strings.TrimSpace(text)
		if strings.HasPrefix(text, "expect:") {
			continue
		}
		if text == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, text)
	}
	p := strings.Join(para, " ")
	for i := 0; i < len(p); i++ {
		if (p[i] == '.' || p[i] == '?' || p[i] == '!') && (i+1 == len(p) || p[i+1] == ' ') && !abbreviation(p[:i+1]) {
			p = p[:i+1]
			break
		}
	}
	if len(p) > maxAbout {
		cut := strings.LastIndexByte(p[:maxAbout-len(" …")+1], ' ')
		p = strings.TrimRight(p[:max(cut, 0)], ",;:—- ") + " …"
	}
	return p
}

// abbreviation reports whether s ends with an abbreviation whose full
// stop ends no sentence ("e.g.", "i.e.", "vs.").
func abbreviation(s string) bool {
	for _, a := range []string{"e.g.", "i.e.", "vs.", "cf.", "etc."} {
		if strings.HasSuffix(s, " "+a) || strings.HasSuffix(s, "("+a) || s == a {
			return true
		}
	}
	return false
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
