package scenarios

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse: it must never panic or hang,
// and whatever it accepts must survive TOML() and parse back unchanged.
// Any extends resolves to a fixed valid parent, or to the input itself
// (a cycle).
func FuzzParse(f *testing.F) {
	reg := libraryRegistry()
	for _, name := range LibraryNames(reg) {
		data, err := ReadLibrary(reg, name+".toml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(valid))
	f.Add([]byte(parentSrc))
	f.Add([]byte(childSrc))
	f.Add([]byte(bufferSrc))
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(p string) ([]byte, error) {
			if p == "parent.toml" {
				return []byte(parentSrc), nil
			}
			return data, nil
		}
		s, err := Parse("sub/fuzz.toml", data, reg, read)
		if err != nil {
			if s != nil {
				t.Fatal("scenario returned with an error")
			}
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			return
		}
		for _, a := range s.Assertions {
			if err := a.Check(); err != nil {
				t.Fatalf("the loader accepted %s, which Check rejects: %v", a.Name, err)
			}
		}
		out := s.TOML()
		back, err := Parse("merged.toml", out, reg, noFiles)
		if err != nil {
			t.Fatalf("TOML() does not parse back: %v\n%s", err, out)
		}
		if a, b := comparable(s), comparable(back); !reflect.DeepEqual(a, b) {
			t.Fatalf("round trip changed the scenario:\n%+v\n%+v", a, b)
		}
		if !bytes.Equal(back.TOML(), out) {
			t.Fatalf("TOML() is not a fixed point")
		}
	})
}
