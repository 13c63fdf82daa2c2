package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Error is one problem with a scenario (spec §8.2): the file it was found
// in, the offending field as a path ("peers[a].kind_config.payload_bytes",
// "links[2].latency_ns", "mutations[0].peers_a"), and a one-line
// explanation. Field is empty for problems with the file as a whole, such
// as a TOML syntax error, whose Msg then carries the line and column.
type Error struct {
	File, Field, Msg string
}

// Error formats e as "FILE: FIELD: explanation", or "FILE: explanation"
// when no single field is at fault.
func (e Error) Error() string {
	if e.Field == "" {
		return e.File + ": " + e.Msg
	}
	return e.File + ": " + e.Field + ": " + e.Msg
}

// Errors is every problem a load found. Parse returns it sorted by file,
// then field, then message (plain byte order), without duplicates, so the
// same input always prints the same lines in the same order whatever order
// the checks ran in.
type Errors []Error

// Error prints every error, one per line, sorted as described on Errors.
func (es Errors) Error() string {
	sorted := es.sorted()
	lines := make([]string, len(sorted))
	for i, e := range sorted {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// sorted returns a sorted copy of es with exact duplicates removed.
func (es Errors) sorted() Errors {
	out := slices.Clone(es)
	slices.SortFunc(out, compareErrors)
	return slices.Compact(out)
}

func compareErrors(a, b Error) int {
	return cmp.Or(
		strings.Compare(a.File, b.File),
		strings.Compare(a.Field, b.Field),
		strings.Compare(a.Msg, b.Msg),
	)
}

// report collects errors against one file.
type report struct {
	file string
	errs *Errors
}

func (r report) add(field, format string, args ...any) {
	*r.errs = append(*r.errs, Error{File: r.file, Field: field, Msg: fmt.Sprintf(format, args...)})
}
