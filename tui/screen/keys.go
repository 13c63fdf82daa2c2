package screen

import "charm.land/bubbles/v2/key"

// KeyMap is every key the stepper answers to outside the breakpoints
// list, as bubbles key bindings: each answers to the key presses named as
// bubbletea names them ("right", "shift+tab", "ctrl+c") and carries its
// help, the key as help shows it and what it does. The stepper matches
// key presses against it (key.Matches) and the screen draws help (`?`
// and the footer) from it, so a key documents itself and the two cannot
// drift apart. It is a bubbles help.KeyMap (ShortHelp, FullHelp).
type KeyMap struct {
	Step, Back, Continue, Reverse, Interrupt key.Binding
	Goto, Host, Focus, FocusBack, Up, Down   key.Binding
	PageUp, PageDown, Open                   key.Binding
	Breakpoints, Seed, Help, Quit            key.Binding
	Verdicts, Search, NextMatch, PrevMatch   key.Binding
	Filter, Follow, Record                   key.Binding
	Message, Why, Chain, Picture             key.Binding
	Watch, NextChange, PrevChange            key.Binding
}

// BreakpointKeys are the keys of the breakpoints list (b), a help.KeyMap
// of its own: they mean something only there, so the `?` screen of the
// stepper's keys does not list them and the list draws them itself.
type BreakpointKeys struct {
	Add, Toggle, Delete, Up, Down, Close key.Binding
}

func binding(help, desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
}

// NewKeyMap is the stepper's keys.
func NewKeyMap() KeyMap {
	b := binding
	return KeyMap{
		Step:        b("n/→/space", "step", "n", "right", "space"),
		Back:        b("p/←", "step back", "p", "left"),
		Continue:    b("c", "continue to breakpoint", "c"),
		Reverse:     b("C", "reverse-continue", "C", "shift+c"),
		Interrupt:   b("esc", "interrupt / close", "esc"),
		Goto:        b("g", "go to step or time (12.5s)", "g"),
		Host:        b("h", "select a host by name (or the start of one)", "h"),
		Focus:       b("tab", "next pane", "tab"),
		FocusBack:   b("shift+tab", "previous pane", "shift+tab"),
		Up:          b("k/↑", "up", "k", "up"),
		Down:        b("j/↓", "down", "j", "down"),
		PageUp:      b("pgup", "page up", "pgup"),
		PageDown:    b("pgdn", "page down", "pgdown"),
		Open:        b("enter", "go to the step of the record / verdict evidence", "enter"),
		Record:      b("o", "show the record under the cursor in full", "o"),
		Verdicts:    b("v", "verdicts: outcome, reason, evidence", "v"),
		Search:      b("/", "search the whole run (text, or field=value …)", "/"),
		NextMatch:   b("]", "next match", "]"),
		PrevMatch:   b("[", "previous match", "["),
		Filter:      b("F", "filter the log (host=H type=T subject=S …)", "F"),
		Follow:      b("G/end", "log: follow the current step again", "G", "end"),
		Message:     b("m", "message: from its send to its delivery, drop or cut, and back", "m"),
		Why:         b("w", "why: the record where the host cursor's accused member became so", "w"),
		Chain:       b("W", "why, whole chain: the transition under the log cursor (or the host cursor's accusation) back to its origin, across hosts", "W", "shift+w"),
		Watch:       b("=", "watch a value: host=H member=M field=F (empty clears)", "="),
		NextChange:  b("}", "next change of the watched value", "}"),
		PrevChange:  b("{", "previous change of the watched value", "{"),
		Picture:     b("P", "picture: write this run as a web page, this step marked", "P"),
		Breakpoints: b("b", "breakpoints: the list, where a adds, space toggles, d deletes", "b"),
		Seed:        b("s", "re-seed and re-execute", "s"),
		Help:        b("?", "help", "?"),
		Quit:        b("q", "quit", "q", "ctrl+c"),
	}
}

// NewBreakpointKeys is the breakpoints list's keys.
func NewBreakpointKeys() BreakpointKeys {
	b := binding
	return BreakpointKeys{
		Add:    b("a", "add", "a"),
		Toggle: b("space", "toggle", "space", "enter"),
		Delete: b("d", "delete", "d", "x", "delete"),
		Up:     b("k/↑", "up", "k", "up"),
		Down:   b("j/↓", "down", "j", "down"),
		Close:  b("esc", "close", "esc", "b"),
	}
}

// ShortHelp is the footer line: the same keys with terse labels.
func (k KeyMap) ShortHelp() []key.Binding {
	short := func(b key.Binding, keys, desc string) key.Binding {
		b.SetHelp(keys, desc)
		return b
	}
	return []key.Binding{
		short(k.Step, "n", "step"), short(k.Back, "p", "back"),
		short(k.Continue, "c", "continue"), short(k.Reverse, "C", "reverse"),
		short(k.Breakpoints, "b", "breaks"), short(k.Goto, "g", "goto"),
		short(k.Verdicts, "v", "verdicts"), short(k.Search, "/", "search"),
		short(k.Seed, "s", "seed"), short(k.Help, "?", "help"), short(k.Quit, "q", "quit"),
	}
}

// FullHelp is the `?` screen, one column per group.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Step, k.Back, k.Continue, k.Reverse, k.Interrupt},
		{k.Goto, k.Host, k.Focus, k.FocusBack, k.Up, k.Down, k.PageUp, k.PageDown, k.Open, k.Record},
		{k.Verdicts, k.Search, k.NextMatch, k.PrevMatch, k.Filter, k.Follow, k.Message, k.Why, k.Chain},
		{k.Watch, k.NextChange, k.PrevChange, k.Picture},
		{k.Breakpoints, k.Seed, k.Help, k.Quit},
	}
}

// ShortHelp is the list's key line.
func (k BreakpointKeys) ShortHelp() []key.Binding {
	move := binding("j/k", "move", "j", "k")
	return []key.Binding{k.Add, k.Toggle, k.Delete, move, k.Close}
}

// FullHelp is the list's keys in one column.
func (k BreakpointKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Add, k.Toggle, k.Delete, k.Up, k.Down, k.Close}}
}
