package rafthost

import (
	"encoding/binary"
	"errors"
	"maps"
	"slices"

	"github.com/dchest/siphash"
	etcd "github.com/detsim/detsim/kinds/raft/rafthost/raftseam"
	pb "github.com/detsim/detsim/kinds/raft/rafthost/raftseam/raftpb"
)

// disk is what a raft host's crash leaves behind: etcd's WAL and snap
// files, modelled as the MemoryStorage etcd replays them into at start
// (its log, HardState and latest snapshot), and its backend, the
// key-value state machine with the index it has applied up to (etcd's
// consistent index, which makes a restart skip what it applied). A write
// reaches the disk only when its fsync completes (host.finish), so a
// crash loses exactly what was not yet durable. Beside the log it keeps
// each entry's prefix chain, the hash of the log up to that entry, which
// the log_append and apply records carry and the log-matching oracle
// compares across hosts.
type disk struct {
	ms *etcd.MemoryStorage
	// chains[i] is the chain at index base+i; chains[0] is the
	// snapshot's (the log's first index is base+1).
	chains []uint64
	base   uint64
	// The state machine: every put applied up to applied, and state,
	// the digest of kv (stateDigest) kept as each put lands, which apply
	// records carry so state_machine_safety compares what each member's
	// store holds.
	kv      map[string]string
	applied uint64
	state   uint64
	// conf is the membership every snapshot records.
	conf *pb.ConfState
}

// newDisk is a fresh disk: an empty log whose configuration is the
// cluster's voters, as etcd bootstraps a new member's storage.
func newDisk(voters []uint64) *disk {
	conf := &pb.ConfState{Voters: voters}
	d := &disk{ms: etcd.NewMemoryStorage(), chains: []uint64{0}, kv: map[string]string{}, conf: conf}
	if err := d.ms.ApplySnapshot(pb.NewSnapshot(nil, nil, conf)); err != nil {
		panic("rafthost: bootstrap snapshot: " + err.Error())
	}
	return d
}

// chainKey keys the prefix hash; any fixed value would do, this one
// names what it hashes.
const chainKey0, chainKey1 = 0x726166742d6c6f67, 0x2d636861696e2d31 // "raft-log" "-chain-1"

// chainOf extends prev with entry e: the chain at e's index.
func chainOf(prev uint64, e *pb.Entry) uint64 {
	var hdr [25]byte
	binary.LittleEndian.PutUint64(hdr[0:], prev)
	binary.LittleEndian.PutUint64(hdr[8:], e.GetIndex())
	binary.LittleEndian.PutUint64(hdr[16:], e.GetTerm())
	hdr[24] = byte(e.GetType())
	// Two siphashes rather than one over a concatenation: no buffer per
	// entry, and the header's hash keys the data's.
	return siphash.Hash(chainKey0^siphash.Hash(chainKey0, chainKey1, hdr[:]), chainKey1, e.GetData())
}

// last is the log's last index.
func (d *disk) last() uint64 { return d.base + uint64(len(d.chains)) - 1 }

// chainAt is the chain at index i, which must be in [base, last].
func (d *disk) chainAt(i uint64) uint64 { return d.chains[i-d.base] }

// append writes ents to the log, replacing any suffix they conflict
// with, as MemoryStorage.Append does; it returns whether a suffix was
// replaced. Entries at or below the snapshot are skipped, as raft's
// storage skips them.
func (d *disk) append(ents []*pb.Entry) (written []*pb.Entry, truncated bool) {
	for len(ents) > 0 && ents[0].GetIndex() <= d.base {
		ents = ents[1:]
	}
	if len(ents) == 0 {
		return nil, false
	}
	keep := ents[0].GetIndex() - d.base
	if keep > uint64(len(d.chains)) {
		panic("rafthost: log append leaves a gap")
	}
	truncated = keep < uint64(len(d.chains))
	d.chains = d.chains[:keep]
	for _, e := range ents {
		d.chains = append(d.chains, chainOf(d.chains[len(d.chains)-1], e))
	}
	if err := d.ms.Append(ents); err != nil {
		panic("rafthost: log append: " + err.Error())
	}
	return ents, truncated
}

// pairKey keys the state digest's hash of one key-value pair.
const pairKey0, pairKey1 = 0x6b762d7374617465, 0x2d6469676573742d // "kv-state" "-digest-"

// pairHash is one pair's share of the state digest.
func pairHash(k, v string) uint64 {
	return siphash.Hash(pairKey0^siphash.Hash(pairKey0, pairKey1, []byte(k)), pairKey1, []byte(v))
}

// stateDigest is the digest of a whole store: the wrapping sum of its
// pairs' hashes, so it depends on what the store holds and not on the
// order the puts came in, and a put updates it in constant time.
func stateDigest(kv map[string]string) uint64 {
	var s uint64
	for k, v := range kv { //detlint:allow maprange a sum, independent of order
		s += pairHash(k, v)
	}
	return s
}

// put applies one put to the state machine.
func (d *disk) put(k, v string) {
	if old, ok := d.kv[k]; ok {
		d.state -= pairHash(k, old)
	}
	d.kv[k] = v
	d.state += pairHash(k, v)
}

// commandDigest is an applied entry's command as apply records carry it:
// its type and its bytes.
func commandDigest(e *pb.Entry) uint64 {
	return siphash.Hash(pairKey0^uint64(e.GetType()), pairKey1, e.GetData())
}

// install replaces the log and the state machine with a snapshot's.
func (d *disk) install(s *pb.Snapshot) error {
	kv, chain, err := decodeSnapshot(s.GetData())
	if err != nil {
		return err
	}
	if err := d.ms.ApplySnapshot(s); err != nil {
		return err
	}
	d.base = s.GetMetadata().GetIndex()
	d.chains = []uint64{chain}
	d.kv, d.applied, d.state = kv, d.base, stateDigest(kv)
	return nil
}

// dropAbove is the lose_tail planted bug (plantForTest): the log loses
// every entry above i, as a storage layer that fsyncs only up to the
// HardState's commit would lose them in a crash. i is at least the
// snapshot's index (a commit never falls below what was applied).
func (d *disk) dropAbove(i uint64) {
	if i >= d.last() || i < d.base {
		return
	}
	snap, err := d.ms.Snapshot()
	if err != nil {
		panic("rafthost: snapshot: " + err.Error())
	}
	hs, _, err := d.ms.InitialState()
	if err != nil {
		panic("rafthost: initial state: " + err.Error())
	}
	baseTerm, err := d.ms.Term(d.base)
	if err != nil {
		panic("rafthost: term: " + err.Error())
	}
	var ents []*pb.Entry
	if i > d.base {
		if ents, err = d.ms.Entries(d.base+1, i+1, noLimit); err != nil {
			panic("rafthost: entries: " + err.Error())
		}
	}
	ms := etcd.NewMemoryStorage()
	if err := ms.ApplySnapshot(pb.NewSnapshot(&d.base, &baseTerm, d.conf)); err != nil {
		panic("rafthost: rebuilding the log: " + err.Error())
	}
	if err := ms.Append(ents); err != nil {
		panic("rafthost: rebuilding the log: " + err.Error())
	}
	if si := snap.GetMetadata().GetIndex(); si > d.base {
		if _, err := ms.CreateSnapshot(si, snap.GetMetadata().GetConfState(), snap.GetData()); err != nil {
			panic("rafthost: rebuilding the snapshot: " + err.Error())
		}
	}
	if err := ms.SetHardState(hs); err != nil {
		panic("rafthost: rebuilding the hard state: " + err.Error())
	}
	d.ms = ms
	d.chains = d.chains[:i-d.base+1]
}

// snapshot records the state machine at applied and compacts the log to
// keep catchUp entries before it (etcd's SnapshotCatchUpEntries), so a
// follower a little behind catches up from the log rather than a
// snapshot. It returns the snapshot's term and the first index kept.
func (d *disk) snapshot(catchUp uint64) (term, compacted uint64) {
	s, err := d.ms.CreateSnapshot(d.applied, d.conf, encodeSnapshot(d.kv, d.chainAt(d.applied)))
	if err != nil {
		panic("rafthost: snapshot: " + err.Error())
	}
	term = s.GetMetadata().GetTerm()
	if d.applied <= catchUp {
		return term, d.base + 1
	}
	ci := d.applied - catchUp
	if ci <= d.base {
		return term, d.base + 1
	}
	if err := d.ms.Compact(ci); err != nil {
		panic("rafthost: compact: " + err.Error())
	}
	d.chains = append([]uint64(nil), d.chains[ci-d.base:]...)
	d.base = ci
	return term, ci + 1
}

// A snapshot's data is the state machine as etcd's backend would ship
// it, in a fixed layout: the chain at its index, the pair count, then
// every key and value (each a uvarint length and the bytes), keys
// sorted.
func encodeSnapshot(kv map[string]string, chain uint64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, chain)
	b = binary.AppendUvarint(b, uint64(len(kv)))
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		v := kv[k]
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	return b
}

var errSnapshotData = errors.New("rafthost: malformed snapshot data")

func decodeSnapshot(b []byte) (map[string]string, uint64, error) {
	kv := map[string]string{}
	if len(b) == 0 { // the bootstrap snapshot: an empty state machine
		return kv, 0, nil
	}
	if len(b) < 8 {
		return nil, 0, errSnapshotData
	}
	chain := binary.LittleEndian.Uint64(b)
	b = b[8:]
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return nil, 0, errSnapshotData
	}
	b = b[w:]
	read := func() (string, bool) {
		l, w := binary.Uvarint(b)
		if w <= 0 || l > uint64(len(b)-w) {
			return "", false
		}
		s := string(b[w : w+int(l)])
		b = b[w+int(l):]
		return s, true
	}
	for range n {
		k, ok1 := read()
		v, ok2 := read()
		if !ok1 || !ok2 {
			return nil, 0, errSnapshotData
		}
		kv[k] = v
	}
	return kv, chain, nil
}

// approxBytes estimates the disk's memory: entries and the state machine.
func (d *disk) approxBytes() int64 {
	n := int64(len(d.chains)) * 80 // an entry's struct, pointers and chain
	for k, v := range d.kv {       //detlint:allow maprange a sum, independent of order
		n += int64(len(k)+len(v)) + 48
	}
	return n
}
