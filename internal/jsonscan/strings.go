package jsonscan

// maxStrings bounds the strings one Strings keeps, so memory stays flat
// on input whose values never repeat.
const maxStrings = 4096

// Strings hands out one Go string per distinct value read, so a stream
// of records naming the same hosts, types and kinds allocates each once
// rather than once per record. The zero value is ready to use; a nil
// *Strings allocates every time.
type Strings struct {
	// recent holds the last value seen per slot, found by a cheap hash of
	// its bytes: most lookups end there, without hashing into m.
	recent [64]string
	m      map[string]string
}

// Get returns b as a string.
func (s *Strings) Get(b []byte) string {
	if s == nil {
		return string(b)
	}
	slot := &s.recent[slotOf(b)]
	if *slot == string(b) {
		return *slot
	}
	v, ok := s.m[string(b)]
	if !ok {
		v = string(b)
		if len(s.m) < maxStrings {
			if s.m == nil {
				s.m = make(map[string]string)
			}
			s.m[v] = v
		}
	}
	*slot = v
	return v
}

// slotOf mixes the length and the first and last bytes, which is where
// ids like p0..p9 and type names differ.
func slotOf(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return int(uint(b[0])*7+uint(b[len(b)-1])*31+uint(len(b))) % 64
}
