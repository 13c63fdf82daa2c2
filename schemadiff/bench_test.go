package schemadiff

import (
	"os"
	"testing"
)

// benchBundle is the 1000-node bundle the benchmark reads; generate it
// with
//
//	go run ./cmd/detsim --batch --out /dev/shm/b1000 kinds/swim/bench/testdata/swim1000_60s.toml
//
// or point DETSIM_SCHEMADIFF_BUNDLE at another.
func benchBundle(b *testing.B) string {
	dir := os.Getenv("DETSIM_SCHEMADIFF_BUNDLE")
	if dir == "" {
		dir = "/dev/shm/b1000"
	}
	if _, err := os.Stat(dir + "/events.ndjson"); err != nil {
		b.Skipf("no bundle at %s (see benchBundle)", dir)
	}
	return dir
}

// BenchmarkCompare_1000Nodes is the goal: a 1.8 M-record bundle
// against itself in under 3 s, memory flat.
func BenchmarkCompare_1000Nodes(b *testing.B) {
	dir := benchBundle(b)
	var records int64
	for b.Loop() {
		r, err := Compare(dir, dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if r.Failed() {
			b.Fatal("a bundle differs from itself")
		}
		records = r.A.Records
	}
	b.ReportMetric(float64(records), "records/side")
}

// BenchmarkReadSchema_1000Nodes is one side alone.
func BenchmarkReadSchema_1000Nodes(b *testing.B) {
	dir := benchBundle(b)
	for b.Loop() {
		if _, err := ReadSchema(dir); err != nil {
			b.Fatal(err)
		}
	}
}
