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
	slices.SortFunc(order, func(a, b snapshotRef) int {
		return cmp.Or(cmp.Compare(plan.at[a.seq], plan.at[b.seq]), cmp.Compare(a.seq, b.seq), cmp.Compare(a.host, b.host))
	})
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
	b := append((*header)[:0], `{"snapshot":"`...)
	b = append(b, s.path...)
	b = append(b, `","virtual_time_ns":`...)
	b = strconv.AppendInt(b, at, 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, n, 10)
	b = append(b, "}\n"...)
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
