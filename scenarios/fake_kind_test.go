package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/kinds/swim/swimcheck"
	"github.com/detsim/detsim/rng"
)

// echoKind stands in for kinds/echo: the loader only needs its tag, its
// states and its Validate (New and Codec are there because every kind
// has them).
var echoKind = fakeEcho{}

type fakeEcho struct{ nopKind }

func (fakeEcho) Tag() string          { return "echo" }
func (fakeEcho) States() []string     { return []string{"up", "down"} }
func (fakeEcho) DownState() string    { return "down" }
func (fakeEcho) RestartState() string { return "up" }

func (fakeEcho) Validate(config map[string]any, peers []string) []hosts.FieldError {
	var errs []hosts.FieldError
	for _, k := range slices.Sorted(maps.Keys(config)) {
		if k != "payload_bytes" {
			errs = append(errs, hosts.FieldError{Field: "kind_config." + k, Msg: "unknown key"})
			continue
		}
		if v, ok := config[k].(int64); !ok || v <= 0 {
			errs = append(errs, hosts.FieldError{Field: "kind_config.payload_bytes", Msg: fmt.Sprintf("must be an integer > 0, got %v", config[k])})
		}
	}
	return errs
}

// checksKind declares the swim kind's assertions and nothing else: the
// loader finds a kind's assertion kinds through the registry.
var checksKind = fakeChecks{}

type fakeChecks struct{ nopKind }

func (fakeChecks) Tag() string                   { return "checks" }
func (fakeChecks) Assertions() *hosts.Assertions { return swimcheck.Family }

// nopKind is a kind's runtime that accepts every config and builds no
// host: the loader never builds one.
type nopKind struct{}

func (nopKind) Tag() string                                          { return "nop" }
func (nopKind) States() []string                                     { return []string{"up"} }
func (nopKind) Validate(map[string]any, []string) []hosts.FieldError { return nil }
func (nopKind) Codec() hosts.Codec                                   { return nopCodec{} }
func (nopKind) New(string, map[string]any, string, []string, *rng.Stream) hosts.Host {
	return nil
}

type nopCodec struct{}

func (nopCodec) Append(dst []byte, _ any) ([]byte, error) { return dst, nil }
func (nopCodec) Decode([]byte) (any, error)               { return nil, nil }

func testRegistry() *hosts.Registry { return hosts.NewRegistry(echoKind, checksKind) }

// libraryRegistry is the registry the CLI uses: library files are checked
// against the real kinds, kind_config included.
func libraryRegistry() *hosts.Registry { return builtin.Registry() }

// noFiles is a readFile for scenarios that extend nothing.
func noFiles(p string) ([]byte, error) { return nil, fmt.Errorf("no file %s in this test", p) }

// echoPeers is the [[peers]] tables of echo peers named ids, in order,
// as the tests' scenarios spell them.
func echoPeers(ids ...string) string {
	var b strings.Builder
	for _, id := range ids {
		b.WriteString("[[peers]]\nid = \"" + id + "\"\nkind = \"echo\"\n")
	}
	return b.String()
}

// files is a readFile over an in-memory file set.
func files(m map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if s, ok := m[p]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("no file %s", p)
	}
}
