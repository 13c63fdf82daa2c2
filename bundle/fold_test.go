package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFold_LinesAreExpandedOrRefused: EachLine hands a folded line out as
// the lines it stands for, numbered on from the lines before it; a line
// that only looks like a fold (the member inside the event, not the
// envelope's last) is one record as written; a fold that cannot be
// expanded (no values, a first value the record does not hold, a value
// that is not a string) is a *LineError naming its line, never a guess.
// The old reader handed a folded line out as one record and fails the
// first case.
func TestFold_LinesAreExpandedOrRefused(t *testing.T) {
	const head = `{"virtual_time_ns":5,"host_id":"a","kind_tag":"swim","event":{"type":"state_transition","observer":"a","subject":`
	const tail = `,"from":"none","to":"alive","incarnation":0,"reason":"initial"}`
	line := func(subject string) string { return head + `"` + subject + `"` + tail + "}" }
	tests := []struct {
		name, file string
		want       []string // lines handed out
		bad        int      // the line a *LineError names; 0: none
	}{
		{"a fold between plain lines", "x\n" + head + `"a"` + tail + `,"fold":{"member":"subject","values":["a","b","c"]}}` + "\ny\n",
			[]string{"x", line("a"), line("b"), line("c"), "y"}, 0},
		{"a fold of one", head + `"a"` + tail + `,"fold":{"member":"subject","values":["a"]}}`, []string{line("a")}, 0},
		{"fold inside the event is the event's own", `{"virtual_time_ns":5,"host_id":"a","kind_tag":"k","event":{"type":"t","fold":{"member":"subject","values":["a"]}}}`,
			[]string{`{"virtual_time_ns":5,"host_id":"a","kind_tag":"k","event":{"type":"t","fold":{"member":"subject","values":["a"]}}}`}, 0},
		{"no values", "x\n" + head + `"a"` + tail + `,"fold":{"member":"subject","values":[]}}`, []string{"x"}, 2},
		{"first value not the record's", head + `"a"` + tail + `,"fold":{"member":"subject","values":["b","a"]}}`, nil, 1},
		{"member not in the event", head + `"a"` + tail + `,"fold":{"member":"host_id","values":["a","b"]}}`, nil, 1},
		{"a value not a string", head + `"a"` + tail + `,"fold":{"member":"subject","values":["a",7]}}`, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, EventsFile), []byte(tt.file), 0o666); err != nil {
				t.Fatal(err)
			}
			var got []string
			err := EachLine(dir, func(n int, b []byte) error {
				if n != len(got)+1 {
					t.Errorf("line %q numbered %d, want %d", b, n, len(got)+1)
				}
				got = append(got, string(b))
				return nil
			})
			var le *LineError
			switch {
			case tt.bad == 0 && err != nil:
				t.Fatalf("EachLine: %v", err)
			case tt.bad != 0 && (!errors.As(err, &le) || le.Line != tt.bad):
				t.Fatalf("EachLine = %v, want a *LineError at line %d", err, tt.bad)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("lines handed out:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
