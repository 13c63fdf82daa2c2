package schemadiff

import (
	"encoding/json"
	"io"
	"testing"
)

// FuzzLine: the line reader never panics, and a line it accepts is valid
// JSON that encoding/json reads as an object with a string kind_tag and
// an event with a string type.
func FuzzLine(f *testing.F) {
	for _, s := range []string{sent, sentF, probe1, nested, spaced, iroh, `{"kind_tag":"s","event":{"type":"x","a":[[1],[2.5,"x"],{}]}}`, `{`, `"`, `{"a":"\u00`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var w walker
		if w.line(b) != nil {
			return
		}
		var rec struct {
			KindTag *string `json:"kind_tag"`
			Event   *struct {
				Type *string `json:"type"`
			} `json:"event"`
		}
		if !json.Valid(b) {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		if err := json.Unmarshal(b, &rec); err != nil || rec.KindTag == nil || rec.Event == nil || rec.Event.Type == nil {
			t.Fatalf("accepted %q: %v", b, err)
		}
	})
}

// FuzzStream: reading any byte stream, in reads of any size, never
// panics.
func FuzzStream(f *testing.F) {
	f.Add([]byte(sent+"\n"+probe1+"\n"), uint8(7))
	f.Add([]byte("\n\n{"), uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, chunk uint8) {
		_, _ = readSchema(&chunked{b: b, n: int(chunk) + 1})
	})
}

type chunked struct {
	b []byte
	n int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[n:]
	return n, nil
}
