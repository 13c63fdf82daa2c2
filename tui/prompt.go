package tui

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/internal/suggest"
)

// promptKind is what a one-line prompt asks for.
type promptKind int

const (
	promptGoto promptKind = iota
	promptSeed
	promptBreakpoint
	promptSearch
	promptFilter
	promptWatch
	promptHost
)

// prompt is a one-line editor in the status line. It is deliberately
// plain (no blinking cursor), so screens are the same every time they are
// drawn.
type prompt struct {
	kind  promptKind
	label string
	value string
	err   string // why the last entry was refused, "" none
}

// maxPromptLen bounds what a prompt accepts.
const maxPromptLen = 128

func newPrompt(kind promptKind, label, value string) *prompt {
	return &prompt{kind: kind, label: label, value: value}
}

func (p *prompt) insert(s string) {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == utf8.RuneError {
			return -1
		}
		return r
	}, s)
	if len(p.value)+len(s) <= maxPromptLen {
		p.value += s
	}
}

func (p *prompt) backspace() {
	if p.value != "" {
		_, n := utf8.DecodeLastRuneInString(p.value)
		p.value = p.value[:len(p.value)-n]
	}
}

// input is what has been typed, with the cursor.
func (p *prompt) input() string { return p.value + "█" }

// promptKey edits the prompt; enter submits it, esc cancels.
func (m Model) promptKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	p := *m.prompt
	switch k.String() {
	case "esc", "ctrl+c":
		m.prompt = nil
		m.status = "cancelled"
		return m, nil
	case "enter":
		m.prompt = nil
		p.err = ""
		return m.submit(p)
	case "backspace":
		p.backspace()
	case "space":
		p.insert(" ")
	default:
		if k.Text != "" {
			p.insert(k.Text)
		}
	}
	m.prompt = &p
	return m, nil
}

// reject refuses a prompt's entry: the prompt stays open with what was
// typed and why, so the next keys correct it rather than run as commands
// (issue 33: a refused breakpoint closed its prompt, and the rest of what
// was being typed ran as the breakpoints list's keys: d deleted one).
func (m Model) reject(p prompt, why string) (tea.Model, tea.Cmd) {
	p.err = why
	m.prompt = &p
	m.setError(why)
	return m, nil
}

// submit acts on a completed prompt.
func (m Model) submit(p prompt) (tea.Model, tea.Cmd) {
	v := strings.TrimSpace(p.value)
	switch p.kind {
	case promptGoto:
		j, err := parseGoto(v)
		if err != nil {
			return m.reject(p, "go to: "+err.Error())
		}
		return m.start(j, "going to "+v+"…")
	case promptSeed:
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return m.reject(p, "seed: want an unsigned 64-bit integer, got "+strconv.Quote(v))
		}
		return m.start(&job{kind: jobReseed, seed: seed}, "re-seeding…")
	case promptSearch:
		if v == "" && m.search != nil {
			return m.startSearch(*m.search, true)
		}
		q, err := debugger.ParseQuery(v)
		if err == nil && q.Empty() {
			err = errors.New("type text to find, or field=value conditions")
		}
		if err == nil && m.schema != nil && len(q.Conds) > 0 {
			err = m.schema.CheckQuery(q)
		}
		if err != nil {
			return m.reject(p, "search: "+err.Error())
		}
		return m.startSearch(q, true)
	case promptFilter:
		q, err := debugger.ParseQuery(v)
		if err == nil && m.schema != nil && len(q.Conds) > 0 {
			err = m.schema.CheckQuery(q)
		}
		if err != nil {
			return m.reject(p, "filter: "+err.Error())
		}
		if q.Empty() {
			m.filter = nil
			m.status, m.isError = "filter cleared", false
			return m, nil
		}
		m.filter = &q
		m.status, m.isError = "the log shows only "+q.String()+" (F, then empty, clears)", false
		return m, nil
	case promptWatch:
		if v == "" {
			m.watch = nil
			m.status, m.isError = "watch cleared", false
			return m, nil
		}
		w, err := debugger.ParseWatch(v)
		if err == nil {
			err = m.schema.CheckWatch(&w)
		}
		if err != nil {
			return m.reject(p, err.Error())
		}
		m.watch = &w
		return m.startWatch(true)
	case promptHost:
		return m.selectHost(p, v)
	case promptBreakpoint:
		b, err := debugger.ParseBreakpoint(v)
		if err == nil && m.schema != nil {
			err = m.schema.Check(b)
		}
		if err != nil {
			return m.reject(p, err.Error())
		}
		m.bps = append(m.bps, b)
		m.bpSel = len(m.bps) - 1
		m.status, m.isError = "breakpoint "+b.String()+" added", false
	}
	return m, nil
}

// selectHost selects the host named v, or the one host whose name starts
// with it: with a thousand hosts the matrix shows a few dozen, and j/k
// would take hundreds of presses to reach one (issue 33).
func (m Model) selectHost(p prompt, v string) (tea.Model, tea.Cmd) {
	peers := m.frame().Peers()
	id := v
	if !slices.Contains(peers, v) {
		var starts []string
		for _, h := range peers {
			if v != "" && strings.HasPrefix(h, v) {
				starts = append(starts, h)
			}
		}
		switch {
		case len(starts) == 1:
			id = starts[0]
		case len(starts) > 1:
			more := ""
			if len(starts) > 5 {
				starts, more = starts[:5], ", …"
			}
			return m.reject(p, fmt.Sprintf("host: %q starts %d hosts' names (%s%s): type more of one", v, len(starts), strings.Join(starts, ", "), more))
		default:
			why := fmt.Sprintf("host: no host %q", v)
			if s := suggest.Near(v, peers); s != "" {
				why += fmt.Sprintf(": did you mean %q?", s)
			}
			return m.reject(p, why)
		}
	}
	m.scr.SelectHost(id)
	m.status, m.isError = "host "+id+" selected", false
	return m, m.maybeRefresh()
}

var errBadGoto = errors.New("want a step (18211, 18 211), a virtual time (12.5s, 250ms, time=12500000000) or a record (L8427, events.ndjson#L8427)")

// parseGoto reads a go-to target: a bare integer (digits grouped or not,
// as the header prints it) is a step index, anything with a unit (12.5s,
// 250ms) or "time=" is a virtual time, "step=N" is explicit, and a record
// reference (L8427, #L8427, events.ndjson#L8427, as verdict evidence
// writes it) goes to the step that emitted that record.
func parseGoto(v string) (*job, error) {
	ref := strings.TrimPrefix(strings.TrimPrefix(v, "events.ndjson"), "#")
	if r, ok := strings.CutPrefix(ref, "L"); ok {
		n, err := debugger.ParseCount(r)
		if err != nil || n < 1 {
			return nil, errors.New("a record is L followed by its line number, 1 or more: L8427")
		}
		return &job{kind: jobGotoRecord, target: n}, nil
	}
	switch {
	case strings.HasPrefix(v, "step="):
		v = strings.TrimPrefix(v, "step=")
	case strings.HasPrefix(v, "time="):
		t, err := debugger.ParseTime(strings.TrimPrefix(v, "time="), "ns")
		if err != nil {
			return nil, err
		}
		return &job{kind: jobGotoTime, target: t}, nil
	}
	if n, err := debugger.ParseCount(v); err == nil {
		return &job{kind: jobGotoStep, target: n}, nil
	}
	t, err := debugger.ParseTime(v, "")
	if err != nil {
		return nil, errBadGoto
	}
	return &job{kind: jobGotoTime, target: t}, nil
}
