package agent

import (
	"bytes"
	"slices"
	"strconv"
)

// The session store is append-only and durable: it is what a crash
// leaves (hosts.Durable). A record is written, and only a written record
// is acknowledged (store_ack); a write may fail (kind_config
// store_fail_writes lists the 1-based write attempts that fail, counted
// over the host's life), and the agent retries it up to
// store_write_retries times.
//
// Serialised, the store is one line per record:
// "<seq> <kind> <turn> <id> <value>\n", ids and values free of spaces.

// record is one durable entry.
type record struct {
	seq   int64
	kind  string // started, outcome, turn, end
	turn  int64
	id    string // the effect id; "-" for turn and end
	value string // started: the effect (model_call, tool_call); outcome: the outcome; turn, end: the outcome
}

type store struct{ recs []record }

func (s *store) marshal() []byte {
	var b []byte
	for _, r := range s.recs {
		b = strconv.AppendInt(b, r.seq, 10)
		b = append(b, ' ')
		b = append(b, r.kind...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, r.turn, 10)
		b = append(b, ' ')
		b = append(b, r.id...)
		b = append(b, ' ')
		b = append(b, r.value...)
		b = append(b, '\n')
	}
	return b
}

// unmarshal reads what marshal wrote; a line it cannot read ends the
// store there (a torn tail, as a real log's recovery would cut it).
func unmarshal(b []byte) store {
	var s store
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte{'\n'})
		if !ok {
			break
		}
		b = rest
		f := bytes.Fields(line)
		if len(f) != 5 {
			break
		}
		seq, err1 := strconv.ParseInt(string(f[0]), 10, 64)
		turn, err2 := strconv.ParseInt(string(f[2]), 10, 64)
		if err1 != nil || err2 != nil {
			break
		}
		s.recs = append(s.recs, record{seq: seq, kind: string(f[1]), turn: turn, id: string(f[3]), value: string(f[4])})
	}
	return s
}

func (s *store) clone() store { return store{recs: slices.Clone(s.recs)} }
