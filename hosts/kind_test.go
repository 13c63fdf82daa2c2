package hosts_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/rng"
)

type tickEvent struct{}

func (tickEvent) Type() string                 { return "tick" }
func (tickEvent) AppendJSON(dst []byte) []byte { return append(dst, `{"type":"tick","n":1}`...) }

type nopCodec struct{}

func (nopCodec) Append(dst []byte, _ any) ([]byte, error) { return dst, nil }
func (nopCodec) Decode([]byte) (any, error)               { return nil, nil }

type params struct{ N int64 }

func (p *params) Bind() []hosts.Slot     { return []hosts.Slot{hosts.CountParam("n", &p.N)} }
func (p params) Slots() []hosts.Slot     { return p.Bind() }
func (params) Kind() string              { return "ticks_at_most" }
func (params) Family() *hosts.Assertions { return nil }

// testKind is a kind whose declarations a test edits: the runtime and
// the optional Records, Charts, Watcher and Oracle.
type testKind struct {
	tag        string
	codec      hosts.Codec
	events     []hosts.Event
	series     []hosts.Series
	watches    []hosts.Watch
	assertions *hosts.Assertions
}

func (k *testKind) Tag() string                                          { return k.tag }
func (k *testKind) States() []string                                     { return []string{"up"} }
func (k *testKind) Validate(map[string]any, []string) []hosts.FieldError { return nil }
func (k *testKind) Codec() hosts.Codec                                   { return k.codec }
func (k *testKind) Events() []hosts.Event                                { return k.events }
func (k *testKind) Series() []hosts.Series                               { return k.series }
func (k *testKind) Watches() []hosts.Watch                               { return k.watches }
func (k *testKind) Assertions() *hosts.Assertions                        { return k.assertions }
func (k *testKind) New(string, map[string]any, string, []string, *rng.Stream) hosts.Host {
	return nil
}

func newKind(tag string, edit func(*testKind)) *testKind {
	k := &testKind{
		tag:    tag,
		codec:  nopCodec{},
		events: []hosts.Event{tickEvent{}},
		series: []hosts.Series{{ID: "ticks", Title: "ticks", Types: []string{"tick"}, Agg: hosts.AggCount}},
		assertions: &hosts.Assertions{
			Kinds: []hosts.AssertionKind{hosts.Def[params](hosts.NoPair, hosts.NoPair)},
			Judge: func([]hosts.AssertionParams) hosts.Judge { return nil },
		},
	}
	if edit != nil {
		edit(k)
	}
	return k
}

// TestRegistryAdd_RefusesBadKinds is the "bad input" for a kind
// from outside the repository (cli.Main): each is refused at
// registration, naming the kind and the field, and leaves the registry
// as it was.
func TestRegistryAdd_RefusesBadKinds(t *testing.T) {
	for _, c := range []struct {
		name       string
		kind       *testKind
		field, msg string
	}{
		{"name already taken", newKind("ping", func(k *testKind) { k.assertions = nil }), "Tag", "already taken"},
		{"assertion without a checker", newKind("pong", func(k *testKind) { k.assertions.Judge = nil }),
			"Assertions.Judge", `assertion kind "ticks_at_most" has no checker`},
		{"assertion name taken", newKind("pong", nil), "Assertions.Kinds[0].Name", `"ticks_at_most" already taken by kind "ping"`},
		{"chart on an undeclared event", newKind("pong", func(k *testKind) {
			k.assertions = nil
			k.series[0].Types = []string{"tock"}
		}), "Series[0].Types[0]", `chart "ticks" on record type "tock", which no prototype in Events has`},
		{"watch on an undeclared event", newKind("pong", func(k *testKind) {
			k.assertions = nil
			k.watches = []hosts.Watch{{Field: "n", Type: "tock", Value: "n"}}
		}), "Watches[0].Type", `record type "tock"`},
		{"no codec", newKind("pong", func(k *testKind) { k.assertions, k.codec = nil, nil }), "Codec", "nil"},
		{"the engine's tag", newKind("engine", func(k *testKind) { k.assertions = nil }), "Tag", "the engine's own"},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := hosts.NewRegistry(newKind("ping", nil))
			err := reg.Add(c.kind)
			var ke *hosts.KindError
			if !errors.As(err, &ke) {
				t.Fatalf("Add = %v, want a *hosts.KindError", err)
			}
			if ke.Kind != c.kind.tag || ke.Field != c.field || !strings.Contains(ke.Msg, c.msg) {
				t.Errorf("Add = %q, want kind %q field %s saying %q", err, c.kind.tag, c.field, c.msg)
			}
			if !strings.Contains(err.Error(), `kind "`+c.kind.tag+`": `+c.field+": ") {
				t.Errorf("message %q does not name the kind and the field", err)
			}
			if got := reg.Tags(); len(got) != 1 || got[0] != "ping" {
				t.Errorf("registry after a refusal holds %v, want [ping]", got)
			}
		})
	}
}

// TestRegistryAdd_AcceptsAGoodKind: the kind the refusals above start
// from is accepted, so each refusal is the one field it changed.
func TestRegistryAdd_AcceptsAGoodKind(t *testing.T) {
	reg := hosts.NewRegistry()
	if err := reg.Add(newKind("ping", nil)); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.Lookup("ping"); !ok {
		t.Fatal("ping not registered")
	}
}

// TestRegister_PanicsOnABadBuiltInKind: a kind built into the binary
// that Add refuses is a build mistake, and says which field.
func TestRegister_PanicsOnABadBuiltInKind(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `kind "ping": Tag: name already taken`) {
			t.Errorf("recovered %v", r)
		}
	}()
	hosts.NewRegistry(newKind("ping", nil), newKind("ping", func(k *testKind) { k.assertions = nil }))
}
