package screen

// Key is one key of the stepper: the key presses it answers to, named
// as bubbletea names them ("right", "shift+tab", "ctrl+c"), and its help,
// the key as help shows it and what it does.
type Key struct {
	Keys       []string
	Help, Desc string
}

// KeyMap is every key the stepper answers to. The stepper matches key
// presses against it and the screen draws help (`?` and the footer) from
// it, so a key documents itself and the two cannot drift apart.
type KeyMap struct {
	Step, Back, Continue, Reverse, Interrupt Key
	Goto, Focus, FocusBack, Up, Down         Key
	PageUp, PageDown, Open                   Key
	Breakpoints, Seed, Help, Quit            Key
	Verdicts, Search, NextMatch, PrevMatch   Key
	Filter, Follow, Record                   Key
	Message, Why, Chain, Picture             Key
	Watch, NextChange, PrevChange            Key
	// Inside the breakpoints list.
	BPAdd, BPToggle, BPDelete Key
}

// NewKeyMap is the stepper's keys.
func NewKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) Key {
		return Key{Keys: keys, Help: help, Desc: desc}
	}
	return KeyMap{
		Step:        b("n/→/space", "step", "n", "right", "space"),
		Back:        b("p/←", "step back", "p", "left"),
		Continue:    b("c", "continue to breakpoint", "c"),
		Reverse:     b("C", "reverse-continue", "C", "shift+c"),
		Interrupt:   b("esc", "interrupt / close", "esc"),
		Goto:        b("g", "go to step or time (12.5s)", "g"),
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
		Breakpoints: b("b", "breakpoints", "b"),
		Seed:        b("s", "re-seed and re-execute", "s"),
		Help:        b("?", "help", "?"),
		Quit:        b("q", "quit", "q", "ctrl+c"),
		BPAdd:       b("a", "add breakpoint", "a"),
		BPToggle:    b("space", "toggle breakpoint", "space", "enter"),
		BPDelete:    b("d", "delete breakpoint", "d", "x", "delete"),
	}
}

// ShortHelp is the footer line: the same keys with terse labels.
func (k KeyMap) ShortHelp() []Key {
	short := func(b Key, keys, desc string) Key {
		b.Help, b.Desc = keys, desc
		return b
	}
	return []Key{
		short(k.Step, "n", "step"), short(k.Back, "p", "back"),
		short(k.Continue, "c", "continue"), short(k.Reverse, "C", "reverse"),
		short(k.Breakpoints, "b", "breaks"), short(k.Goto, "g", "goto"),
		short(k.Verdicts, "v", "verdicts"), short(k.Search, "/", "search"),
		short(k.Seed, "s", "seed"), short(k.Help, "?", "help"), short(k.Quit, "q", "quit"),
	}
}

// FullHelp is the `?` screen, one column per group.
func (k KeyMap) FullHelp() [][]Key {
	return [][]Key{
		{k.Step, k.Back, k.Continue, k.Reverse, k.Interrupt},
		{k.Goto, k.Focus, k.FocusBack, k.Up, k.Down, k.PageUp, k.PageDown, k.Open, k.Record},
		{k.Verdicts, k.Search, k.NextMatch, k.PrevMatch, k.Filter, k.Follow, k.Message, k.Why, k.Chain},
		{k.Watch, k.NextChange, k.PrevChange, k.Picture},
		{k.Breakpoints, k.BPAdd, k.BPToggle, k.BPDelete, k.Seed, k.Help, k.Quit},
	}
}
