// Package tomlguard checks raw TOML bytes for what would make the TOML
// decoder slow before they reach it: nesting of arrays, tables and dotted
// keys. Every reader of TOML input detsim is handed — the scenario
// loader, property files, a bundle's scenario.toml in verify — runs it
// first.
package tomlguard

import "fmt"

// MaxNesting bounds how deeply arrays and tables may nest, by brackets
// or by dotted keys. The TOML decoder's time and memory grow faster than
// linearly with nesting depth, so a few kilobytes of brackets or dots would
// otherwise stall a load for minutes or exhaust memory; real scenarios
// nest three or four levels.
const MaxNesting = 32

// Check scans the raw bytes for '[' / '{' nesting and for dots
// (dotted keys) outside strings and comments, and explains the first place
// either exceeds MaxNesting. It is a guard, not a parser: on malformed
// input it may miscount, and the decoder then reports the real syntax
// error.
func Check(data []byte) error {
	depth, line, dots := 0, 1, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line++
			dots = 0
		case '.':
			dots++
			if dots > MaxNesting {
				return fmt.Errorf("line %d: more than %d dots outside strings (a dotted key may have at most %d parts)", line, MaxNesting, MaxNesting+1)
			}
		case '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			var end int
			end, line = skipString(data, i, line)
			i = end
		case '[', '{':
			depth++
			if depth > MaxNesting {
				return fmt.Errorf("line %d: arrays and tables nest more than %d levels deep", line, MaxNesting)
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// skipString returns the index of the last byte of the string opening at
// data[i] (or the end of data), and the line number there.
func skipString(data []byte, i, line int) (int, int) {
	q := data[i]
	multi := i+2 < len(data) && data[i+1] == q && data[i+2] == q
	if multi {
		i += 2
	}
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\n':
			line++
			if !multi {
				return i - 1, line - 1 // an unterminated one-line string: let the decoder say so
			}
		case '\\':
			if q == '"' {
				i++
				if i < len(data) && data[i] == '\n' {
					line++
				}
			}
		case q:
			if !multi {
				return i, line
			}
			if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
				// A multi-line string may end with up to two extra quotes.
				i += 2
				for i+1 < len(data) && data[i+1] == q {
					i++
				}
				return i, line
			}
		}
	}
	return len(data), line
}
