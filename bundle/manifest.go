package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
)

// Format is the manifest's format tag of the bundles this detsim writes.
// It changes when a reader of the old layout could no longer read a new
// bundle correctly: a detsim-bundle/1 reader refuses a detsim-bundle/2
// manifest by its format, never reading snapshots.records as something
// else, and a detsim-bundle/2 reader refuses a detsim-bundle/3 one, never
// reading a folded line as the one record it looks like (docs/bundle.md,
// "Formats").
const Format = "detsim-bundle/3"

// FormatV2 is the format of the bundles detsim wrote before folded lines
// (docs/bundle.md, "Folded lines"): the files of Format, every line of
// events.ndjson one record. Every reader still reads it.
const FormatV2 = "detsim-bundle/2"

// hasRecordsFile reports whether a bundle of format f keeps its snapshots
// in snapshots.records (detsim-bundle/2 on) rather than a file each.
func hasRecordsFile(f string) bool { return f == Format || f == FormatV2 }

// FormatV1 is the format of the bundles detsim wrote before snapshots.records:
// one file per snapshot, snapshots/<host>/<seq>.json, and no compressed
// files. Every reader still reads it; `detsim bundle compress` converts it.
const FormatV1 = "detsim-bundle/1"

// The names of the files every bundle holds, relative to its root.
const (
	ManifestFile  = "manifest.json"
	ScenarioFile  = "scenario.toml"
	EventsFile    = "events.ndjson"
	VerdictsFile  = "verdicts.json"
	KnownGapsFile = "known_gaps.md"
	// SnapshotsDir names snapshots: snapshots/<host>/<seq>.json is a
	// snapshot's path in evidence and the digest, and its file in a
	// FormatV1 bundle.
	SnapshotsDir = "snapshots"
	// SnapshotsFile holds every snapshot of a Format bundle, one record
	// after another as the run digest hashes them: present only when the
	// run took a snapshot.
	SnapshotsFile = "snapshots.records"
)

// ReceiveTimeSubstitution is the §9.5 substitution every simulated run
// makes: production's renderer takes receive timestamps from the
// collector, which a simulation does not have.
const ReceiveTimeSubstitution = "receive timestamps are virtual-clock arrival times computed by the network model, not collector-side wall-clock timestamps"

// Manifest is manifest.json (spec §9.4). It is encoded with its members in
// the order of the fields below and files sorted by path.
//
// The caller fills SimulatorVersion, ScenarioPath, ScenarioSHA256, Seed,
// DurationNs, Truncated, HostArch, Digest and any extra Substitutions; Writer.Finish
// fills the rest (Format, TimeUnit, Clock, Records, EventsSHA256, Files)
// and puts ReceiveTimeSubstitution first in Substitutions, replacing
// whatever the caller left in those fields.
type Manifest struct {
	// Format is always Format.
	Format string `json:"format"`
	// SimulatorVersion is the commit the simulator was built from, or
	// "unknown".
	SimulatorVersion string `json:"simulator_version"`
	// ScenarioPath and ScenarioSHA256 name the scenario file as the user
	// gave it; scenario.toml in the bundle is the merged scenario with the
	// seed actually used.
	ScenarioPath   string `json:"scenario_path"`
	ScenarioSHA256 string `json:"scenario_sha256"`
	Seed           uint64 `json:"seed"`
	// DurationNs is the run's virtual duration.
	DurationNs int64 `json:"duration_ns"`
	// Truncated, when set, says why the run stopped before its scenario's
	// end: a cap on the records or bytes a run may write was reached
	// (one sentence, naming the cap and the flag that raises it). The
	// bundle is whole and consistent up to DurationNs.
	Truncated string `json:"truncated,omitempty"`
	// TimeUnit ("ns") and Clock ("virtual") tell post-processors that every
	// time in the bundle is integer nanoseconds of virtual time.
	TimeUnit string `json:"time_unit"`
	Clock    string `json:"clock"`
	// HostArch is the GOARCH the run executed on.
	HostArch string `json:"host_arch"`
	// Records is the number of lines in events.ndjson.
	Records int64 `json:"records"`
	// Digest is the engine's running digest of every record of the run.
	Digest string `json:"digest"`
	// EventsSHA256 is the SHA-256 of events.ndjson (also in Files).
	EventsSHA256 string `json:"events_sha256"`
	// Files maps the slash-separated path of every file in the bundle
	// except manifest.json to its lower-case hex SHA-256.
	Files map[string]string `json:"files"`
	// Substitutions lists, one sentence each, the inputs production's
	// renderer expects that the simulator replaced by a virtual-clock
	// equivalent (spec §9.5).
	Substitutions []string `json:"substitutions"`
	// Mode is ModeLive for a bundle of real nodes on real sockets (package
	// live), ModeWitness for one recorded from another SWIM implementation
	// run on the scenario's links in virtual time (kinds/swim/bench/: memberlist),
	// absent for a simulated run. A live bundle's Clock is "wall", a
	// witness bundle's "virtual".
	Mode string `json:"mode,omitempty"`
	// Interrupted, when set, says why a live run stopped before its
	// scenario's end (cancelled, or a --duration cap): one sentence. The
	// bundle is whole and consistent up to DurationNs, as for Truncated.
	Interrupted string `json:"interrupted,omitempty"`
	// Machine is what a live run ran on; absent for a simulated run,
	// whose records do not depend on the machine.
	Machine *Machine `json:"machine,omitempty"`
	// Testbed says how a kernel testbed run realised the scenario's
	// network (ModeTestbed only).
	Testbed *Testbed `json:"testbed,omitempty"`
}

// ModeTestbed is Manifest.Mode of a kernel testbed bundle (package
// testbed): real daemons in network namespaces, links realised by the
// kernel (veth MTU and IP fragmentation, HTB, nftables loss) and a
// delay line that shares nothing with the network model. Its clock is
// "wall", as a live bundle's; its files may include testbed/*.
const ModeTestbed = "testbed"

// TestbedDir holds a testbed bundle's own files: the delay line's log of
// every draw, and the like.
const TestbedDir = "testbed"

// Testbed is what a testbed run realised: the kernel it ran on, the
// daemons, and each directed edge's parameters as set in the kernel and
// the delay line (not as measured: `detsim testbed --probe` measures).
type Testbed struct {
	Kernel string `json:"kernel"`
	// Impl is the daemon implementation: "swimd" or "memberlist".
	Impl string `json:"impl"`
	// DaemonSeed is the seed every daemon's protocol draws came from,
	// taken from the operating system's randomness so that no testbed
	// run replays a simulation's draws.
	DaemonSeed uint64 `json:"daemon_seed"`
	// DelayLine says how latency and jitter were applied.
	DelayLine string        `json:"delay_line"`
	Edges     []TestbedEdge `json:"edges"`
	// Unobserved lists what the simulator records that nobody on the
	// testbed can see, each with the reason: schemadiff does not hold
	// its absence against the simulator (docs/testbed.md).
	Unobserved []Unobserved `json:"unobserved"`
	// Lateness is the delay line's own error: how late it released each
	// packet against the instant it scheduled. Absent in bundles
	// recorded before the field, whose error was not recorded (a reader
	// says so, never assumes one).
	Lateness *TestbedLateness `json:"lateness,omitempty"`
	// Load is the machine's load while the run went on, which the
	// lateness grows with. Absent in bundles recorded before the field.
	Load *TestbedLoad `json:"load,omitempty"`
	// Marked, when set, says why the recording's own error is too large
	// for the links it was asked to realise (one sentence): the delay
	// line's p99 lateness exceeded a tenth of the smallest latency
	// asked (docs/testbed.md, "The testbed's own error"). A comparison
	// against a marked recording says so beside what it judges.
	Marked string `json:"marked,omitempty"`
	// Start is how the run's daemons started: absent in bundles
	// recorded before the start barrier, whose daemons began as each
	// came up (docs/testbed.md, "How a run starts").
	Start *TestbedStart `json:"start,omitempty"`
}

// TestbedStart is a testbed run's start barrier: the run chose its start
// instant MarginNs ahead, then started its daemons, and every daemon up
// at t = 0 had bound its socket ReadyNs after the choice (less than
// MarginNs, or the run was refused).
type TestbedStart struct {
	MarginNs int64 `json:"margin_ns"`
	ReadyNs  int64 `json:"ready_ns"`
}

// TestbedLateness summarises how late the delay line released packets:
// the instant it wrote each one back less the instant it scheduled
// (entry + the delay drawn), over every packet it delayed.
type TestbedLateness struct {
	Packets int64 `json:"packets"`
	P50Ns   int64 `json:"p50_ns"`
	P99Ns   int64 `json:"p99_ns"`
	MaxNs   int64 `json:"max_ns"`
	// SmallestLatencyNs is the smallest latency_ns among the realised
	// edges: the yardstick Marked measures P99Ns against.
	SmallestLatencyNs int64 `json:"smallest_latency_ns"`
}

// TestbedLoad is the machine's 1-minute load average (/proc/loadavg)
// sampled while the run went on, and its core count: a load above the
// cores means runnable threads waited, the delay line's among them.
type TestbedLoad struct {
	CPUs        int     `json:"cpus"`
	Samples     int     `json:"samples"`
	Load1Min    float64 `json:"load1_min"`    //detlint:allow float the machine's load a testbed recording reports; read by calibrate and shown, never decided on
	Load1Median float64 `json:"load1_median"` //detlint:allow float the machine's load a testbed recording reports; read by calibrate and shown, never decided on
	Load1Max    float64 `json:"load1_max"`    //detlint:allow float the machine's load a testbed recording reports; read by calibrate and shown, never decided on
}

// Unobserved is one kind ("kind_tag/type", or "kind_tag/*") or one
// field of a kind ("kind_tag/type event.field") a production executor
// cannot observe, and why.
type Unobserved struct {
	What string `json:"what"`
	Why  string `json:"why"`
}

// TestbedEdge is one directed edge as the testbed realised it.
type TestbedEdge struct {
	From string `json:"from"`
	To   string `json:"to"`
	// LatencyNs and JitterStddevNs are the delay line's per-packet
	// delay: normal with this mean and standard deviation, clamped at 0.
	LatencyNs      int64 `json:"latency_ns"`
	JitterStddevNs int64 `json:"jitter_stddev_ns"`
	// LossPPM is nftables' per-packet (so per-fragment) drop probability
	// at the receiver's ingress.
	LossPPM int64 `json:"loss_ppm"`
	// RateBitsPerSecond is the HTB class rate of the edge (bits/s, as tc
	// takes it), 0 when the edge is not shaped.
	RateBitsPerSecond int64 `json:"rate_bits_per_second"`
	// BurstBytes is the HTB class's burst (and cburst): the token
	// bucket's depth, the scenario's burst_bytes. Absent in bundles
	// recorded before the field, whose classes had one packet (the veth
	// MTU + 64 = 1 564 bytes).
	BurstBytes int64 `json:"burst_bytes,omitempty"`
	// QueueBytes is the byte limit of the edge's queue behind HTB.
	QueueBytes int64 `json:"queue_bytes"`
	// MTUBytes is the route MTU the sender fragments at.
	MTUBytes int64 `json:"mtu_bytes"`
}

// ModeLive is Manifest.Mode of a live bundle.
const ModeLive = "live"

// ModeWitness is Manifest.Mode of a witness bundle: the records of a SWIM
// that is not kinds/swim/swim (hashicorp/memberlist, in kinds/swim/bench/), run on the
// scenario's links inside a testing/synctest bubble, so its clock is
// virtual, and mapped onto detsim's event schema. Verify checks it as a
// simulated bundle; the comparison tools read it as production.
const ModeWitness = "witness"

// ModeEdge is Manifest.Mode of an episode recorded by `detsim edge`
// (package edge): an outside agent served over HTTP on real time. Its
// clock is "wall", scaled: EdgeClockSubstitution.
const ModeEdge = "edge"

// EdgeClockSubstitution is an edge bundle's first substitution.
const EdgeClockSubstitution = "virtual_time_ns is wall-clock time divided by the edge's time scale: nanoseconds of the edge's monotonic clock since the episode began, read when the edge served, was told or did each thing; the provider, tool and mutation records are what the edge served and did, the agent's records are what the outside agent reported"

// Machine describes the machine a live run ran on.
type Machine struct {
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	CPUs      int    `json:"cpus"`
	GoVersion string `json:"go_version"`
}

// TestbedClockSubstitution is the §9.5 substitution of a testbed run.
const TestbedClockSubstitution = "virtual_time_ns is wall-clock time: nanoseconds of the machine's monotonic clock since the run's shared start instant, read by each daemon when it handled the event; the network is a real kernel's (namespaces, veth, IP fragmentation, HTB, nftables) with a user-space delay line, not the network model"

// LiveClockSubstitution is the §9.5 substitution every live run makes, in
// place of ReceiveTimeSubstitution: its times are real, but counted from
// the run's start, not read as Unix time by a collector.
const LiveClockSubstitution = "virtual_time_ns is wall-clock time: nanoseconds of the machine's monotonic clock since the run's shared start instant, read by each node when it handled the event; receive timestamps are the receiving node's clock when its loop took the datagram, not collector-side timestamps"

// ParityChecksum returns the cross-architecture parity checksum of a run
// (spec §7.6): the hex SHA-256 of the lines "<path> <sha256>\n", sorted by
// path, for events.ndjson and snapshots.records (in a FormatV1 bundle,
// every file under snapshots/). A run without snapshots has the same
// checksum in both formats. It leaves out
// the manifest, whose commit hash and architecture differ by design, and
// the scenario, verdicts and known-gaps copies, which are inputs or
// derived from the events.
func ParityChecksum(m Manifest) string {
	h := sha256.New()
	for _, path := range slices.Sorted(maps.Keys(m.Files)) {
		if path != EventsFile && path != SnapshotsFile && !strings.HasPrefix(path, SnapshotsDir+"/") {
			continue
		}
		h.Write([]byte(path))
		h.Write([]byte{' '})
		h.Write([]byte(m.Files[path]))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// mergeSubstitutions returns first (ReceiveTimeSubstitution, or LiveClockSubstitution for a live run) followed by the
// caller's substitutions, without duplicates and never nil, so the
// manifest always records the substitution every run makes.
func mergeSubstitutions(first string, extra []string) []string {
	out := []string{first}
	for _, s := range extra {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
