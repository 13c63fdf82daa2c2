package rafthost_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/detsim/detsim/engine"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/kinds/raft/rafthost"
	"github.com/detsim/detsim/scenarios"
)

func registry() *hosts.Registry { return hosts.NewRegistry(rafthost.Kind) }

// load reads a scenario file, with the seed replaced when seed ≥ 0.
func load(t testing.TB, path string, seed int64) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Load(path, registry())
	if err != nil {
		t.Fatal(err)
	}
	if seed >= 0 {
		sc.Seed = uint64(seed)
	}
	return sc
}

// events captures a run's events.ndjson.
type events struct{ buf bytes.Buffer }

func (w *events) WriteEventLine(b []byte) error           { w.buf.Write(b); return nil }
func (w *events) WriteSnapshot(string, int, []byte) error { return nil }

// run runs sc to its end and returns its records and digest.
func run(t testing.TB, sc *scenarios.Scenario) (*records, string) {
	t.Helper()
	w := &events{}
	e, err := engine.New(sc, registry(), engine.Options{Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return parse(t, w.buf.Bytes()), e.Digest()
}

// digest runs sc with no writer and returns its digest.
func digest(t testing.TB, sc *scenarios.Scenario) string {
	t.Helper()
	e, err := engine.New(sc, registry(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(); err != nil {
		t.Fatal(err)
	}
	return e.Digest()
}

// record is one events.ndjson line, decoded.
type record struct {
	At    int64          `json:"virtual_time_ns"`
	Host  string         `json:"host_id"`
	Kind  string         `json:"kind_tag"`
	Event map[string]any `json:"event"`
	Raw   string         `json:"-"`
}

func (r record) Type() string { s, _ := r.Event["type"].(string); return s }

func (r record) Str(k string) string { s, _ := r.Event[k].(string); return s }

func (r record) Num(k string) int64 { f, _ := r.Event[k].(float64); return int64(f) }

type records struct {
	all []record
	raw []byte
}

func parse(t testing.TB, b []byte) *records {
	t.Helper()
	rs := &records{raw: b}
	for _, ln := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var r record
		if err := json.Unmarshal(ln, &r); err != nil {
			t.Fatalf("%s: %v", ln, err)
		}
		r.Raw = string(ln)
		rs.all = append(rs.all, r)
	}
	return rs
}

// of returns the records of type typ (of host, when host is not "").
func (rs *records) of(typ, host string) []record {
	var out []record
	for _, r := range rs.all {
		if r.Type() == typ && (host == "" || r.Host == host) {
			out = append(out, r)
		}
	}
	return out
}

func (rs *records) String() string {
	var b strings.Builder
	for _, r := range rs.all {
		b.WriteString(r.Raw)
		b.WriteByte('\n')
	}
	return b.String()
}
