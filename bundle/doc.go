// Package bundle writes, reads and verifies a run's bundle (spec §9): the
// directory holding manifest.json, scenario.toml, events.ndjson,
// snapshots/<host_id>/<snapshot_seq>.json, verdicts.json and known_gaps.md.
//
// The Writer is the only part of a run that touches the filesystem. It
// builds the bundle in a private work directory next to the output path
// and moves it into place only when Finish has written every file, the
// manifest last, so a reader never sees a half-written bundle under the
// output name. ReadEvents streams events.ndjson back for the verdict
// evaluator; Verify rechecks every hash the manifest lists, the manifest
// against scenario.toml and the digest (docs/bundle.md: it proves
// consistency, not origin); ParityChecksum is the cross-architecture
// checksum of spec §7.6.
//
// Nothing this package writes depends on the wall clock, the process or
// the machine except the manifest fields the caller supplies
// (simulator_version, host_arch, scenario_path), which the parity checksum
// leaves out by design.
package bundle
