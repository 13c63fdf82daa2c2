package property

import "fmt"

// maxNesting bounds how deeply arrays and tables nest and how many parts
// a dotted key has. The TOML decoder's cost grows faster than linearly
// with depth, so a few kilobytes of brackets would otherwise stall a load;
// real property files nest three levels.
const maxNesting = 32

// checkNesting scans data for '[' / '{' depth and for dots outside
// strings and comments. It is a guard, not a parser: on malformed input it
// may miscount, and the decoder then reports the real error.
func checkNesting(data []byte) error {
	depth, line, dots := 0, 1, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '\n':
			line++
			dots = 0
		case '#':
			for i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			i, line = skipQuoted(data, i, line)
		case '.':
			if dots++; dots > maxNesting {
				return fmt.Errorf("line %d: more than %d dots outside strings", line, maxNesting)
			}
		case '[', '{':
			if depth++; depth > maxNesting {
				return fmt.Errorf("line %d: arrays and tables nest more than %d levels deep", line, maxNesting)
			}
		case ']', '}':
			depth = max(depth-1, 0)
		}
	}
	return nil
}

// skipQuoted returns the index of the last byte of the string that opens
// at data[i], and the line number there.
func skipQuoted(data []byte, i, line int) (int, int) {
	q := data[i]
	multi := i+2 < len(data) && data[i+1] == q && data[i+2] == q
	if multi {
		i += 2
	}
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\n':
			if !multi {
				return i - 1, line // unterminated: the decoder explains
			}
			line++
		case '\\':
			if q == '"' && i+1 < len(data) && data[i+1] != '\n' {
				i++
			}
		case q:
			if !multi {
				return i, line
			}
			if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
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
