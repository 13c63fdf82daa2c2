package bundle

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/detsim/detsim/internal/safefile"
)

// recomputeDigest recomputes the engine's digest (engine.Engine.Digest)
// from a bundle: the hex SHA-256 of eventsSum (the raw SHA-256 of
// events.ndjson) followed by the SHA-256 of the snapshot records in
// emission order, each record the header line
//
//	{"snapshot":"snapshots/<host>/<seq>.json","virtual_time_ns":T,"bytes":N}
//
// then the snapshot's N bytes. T is the request's at_ns. The emission
// order is by request (at_ns, then seq) and, within one, by host in the
// plan's order. Every snap must name a host and request of plan.
func recomputeDigest(root *os.Root, eventsSum []byte, plan *snapshotPlan, snaps []snapshotRef) (string, error) {
	order := slices.Clone(snaps)
	slices.SortFunc(order, func(a, b snapshotRef) int { return compareEmission(plan, a, b) })
	h := sha256.New()
	var header []byte
	for _, s := range order {
		f, err := safefile.OpenIn(root, s.path)
		if err != nil {
			return "", err
		}
		err = hashSnapshotRecord(h, &header, f, s, plan.at[s.seq])
		f.Close()
		if err != nil {
			return "", err
		}
	}
	d := sha256.New()
	d.Write(eventsSum)
	d.Write(h.Sum(nil))
	return hex.EncodeToString(d.Sum(nil)), nil
}

// compareEmission orders snapshots as a run emits them: by request (at_ns,
// then seq) and, within one, by host in the plan's order.
func compareEmission(plan *snapshotPlan, a, b snapshotRef) int {
	return cmp.Or(cmp.Compare(plan.at[a.seq], plan.at[b.seq]), cmp.Compare(a.seq, b.seq), cmp.Compare(a.host, b.host))
}

// hashSnapshotRecord writes one snapshot record, header then bytes, to h.
// header is a reusable buffer.
func hashSnapshotRecord(h hash.Hash, header *[]byte, f *os.File, s snapshotRef, at int64) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if err := safefile.CheckRegular(s.path, info); err != nil {
		return err
	}
	n := info.Size()
	b := appendSnapshotHeader((*header)[:0], s.path, at, n)
	*header = b
	h.Write(b)
	copied, err := io.Copy(h, io.LimitReader(f, n+1))
	if err != nil {
		return err
	}
	if copied != n {
		return fmt.Errorf("%s changed size while it was read", s.path)
	}
	return nil
}

// appendSnapshotHeader appends the digest's header line of one snapshot
// record: {"snapshot":"<path>","virtual_time_ns":T,"bytes":N}\n.
func appendSnapshotHeader(b []byte, rel string, at, n int64) []byte {
	b = append(b, `{"snapshot":"`...)
	b = append(b, rel...)
	b = append(b, `","virtual_time_ns":`...)
	b = strconv.AppendInt(b, at, 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, n, 10)
	return append(b, "}\n"...)
}

// DigestSnapshot is one snapshot file as the run digest covers it.
type DigestSnapshot struct {
	Host string
	Seq  int
	// AtNs is the request's at_ns (not when the snapshot was taken).
	AtNs int64
	Data []byte
}

// RunDigest computes the run digest Verify recomputes (recomputeDigest)
// from the raw SHA-256 of events.ndjson and the snapshot files, for a
// writer that is not the engine (a live run). snaps may come in any
// order: they are hashed in emission order, by (AtNs, Seq, Host).
func RunDigest(eventsSHA256 []byte, snaps []DigestSnapshot) string {
	order := slices.Clone(snaps)
	slices.SortFunc(order, func(a, b DigestSnapshot) int {
		return cmp.Or(cmp.Compare(a.AtNs, b.AtNs), cmp.Compare(a.Seq, b.Seq), cmp.Compare(a.Host, b.Host))
	})
	h := sha256.New()
	var header []byte
	for _, s := range order {
		rel := SnapshotsDir + "/" + s.Host + "/" + strconv.Itoa(s.Seq) + ".json"
		header = appendSnapshotHeader(header[:0], rel, s.AtNs, int64(len(s.Data)))
		h.Write(header)
		h.Write(s.Data)
	}
	return digestOf(eventsSHA256, h.Sum(nil))
}

// digestOf is the run digest of the raw SHA-256 of events.ndjson and of
// the snapshot records.
func digestOf(eventsSHA256, snapshotsSHA256 []byte) string {
	d := sha256.New()
	d.Write(eventsSHA256)
	d.Write(snapshotsSHA256)
	return hex.EncodeToString(d.Sum(nil))
}
