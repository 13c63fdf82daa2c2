package bundle

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/detsim/detsim/internal/jsonscan"
	"github.com/detsim/detsim/internal/safefile"
)

// GzipSuffix is appended to the name of a file of a detsim-bundle/2 or /3
// bundle stored gzip-compressed (`detsim bundle compress`). The manifest
// lists the file by its own name and the SHA-256 of its content, not of
// the compressed bytes: compressing a bundle leaves its manifest, digest
// and parity checksum as they were, and no reader depends on how a
// compressor chose its bytes (docs/bundle.md, "Compressed bundles").
const GzipSuffix = ".gz"

// storedAs returns the listed file that the entry rel on disk stores in
// a bundle of manifest m: rel itself, or, in a detsim-bundle/2 or /3 bundle,
// rel without GzipSuffix when that is listed. ok is false for an entry
// that stores no listed file.
func storedAs(m Manifest, rel string) (listed string, gz bool, ok bool) {
	if _, ok := m.Files[rel]; ok {
		return rel, false, true
	}
	if !hasRecordsFile(m.Format) {
		return "", false, false
	}
	base, cut := strings.CutSuffix(rel, GzipSuffix)
	if _, ok := m.Files[base]; cut && ok && base != ManifestFile {
		return base, true, true
	}
	return "", false, false
}

// storedFile is a bundle file opened for reading its content: the file
// itself, or its gzip-compressed copy read through a decompressor.
type storedFile struct {
	f  *os.File
	zr *gzip.Reader
	io.Reader
}

func (s *storedFile) Close() error {
	if s.zr != nil {
		s.zr.Close()
	}
	return s.f.Close()
}

// openStored opens the content of the bundle file rel through root:
// rel, or rel+GzipSuffix read through gzip when rel is absent. Either is
// refused unless it is a regular file, before a byte is read. name is
// how errors refer to the file. Both being present is for Verify to
// report; a reader takes rel.
func openStored(root *os.Root, rel, name string) (*storedFile, error) {
	f, err := safefile.OpenIn(root, rel)
	gz := false
	if errors.Is(err, fs.ErrNotExist) && rel != ManifestFile {
		var gerr error
		if f, gerr = safefile.OpenIn(root, rel+GzipSuffix); gerr == nil {
			gz, name, err = true, name+GzipSuffix, nil
		} else if !errors.Is(gerr, fs.ErrNotExist) {
			err = gerr
		}
	}
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil {
		err = safefile.CheckRegular(name, info)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &storedFile{f: f, Reader: f}
	if gz {
		zr, err := gzip.NewReader(bufio.NewReaderSize(f, 64<<10))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		s.zr, s.Reader = zr, zr
	}
	return s, nil
}

// OpenFile opens the content of the bundle file rel (slash-separated)
// inside dir for a streaming read, whether it is stored as itself or
// gzip-compressed (GzipSuffix). Like internal/safefile it goes through
// an os.Root on dir and refuses anything but a regular file before a
// byte is read.
func OpenFile(dir, rel string) (io.ReadCloser, error) {
	root, err := safefile.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return openStored(root, rel, filepath.Join(dir, filepath.FromSlash(rel)))
}

// ReadFile reads the content of the bundle file rel inside dir, opened
// as OpenFile opens it, refusing content over max bytes (for a compressed
// file, max bounds what it decompresses to).
//
// ReadFile is safefile.ReadFileIn for a bundle file, alike in shape:
// OpenFile also reads a gzip-compressed copy (GzipSuffix), which
// safefile knows nothing of.
func ReadFile(dir, rel string, max int64) ([]byte, error) {
	f, err := OpenFile(dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f, filepath.Join(dir, filepath.FromSlash(rel)), max)
}

func readBounded(r io.Reader, name string, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s is over %d bytes; at most %d are read", name, max, max)
	}
	return data, nil
}

// SnapshotRecord is one snapshot as EachSnapshot reads it.
type SnapshotRecord struct {
	// Path is the snapshot's name, snapshots/<host>/<seq>.json: the file
	// that holds it in a detsim-bundle/1 bundle, the record's name in
	// snapshots.records, and what evidence cites.
	Path string
	Host string
	Seq  int
	// AtNs is the request's at_ns as the record says it; -1 in a
	// detsim-bundle/1 bundle, whose files do not say it.
	AtNs int64
	Data []byte
}

// MaxSnapshotBytes bounds one snapshot as a reader holds it.
const MaxSnapshotBytes = MaxManifestBytes

// EachSnapshot calls fn with every snapshot of the bundle in dir whose
// manifest is m, in any format: in a detsim-bundle/2 or /3 bundle the
// records of snapshots.records in the order the run wrote them, in a
// detsim-bundle/1 bundle the snapshot files the manifest lists, by path.
// Data is valid until fn returns.
func EachSnapshot(dir string, m Manifest, fn func(SnapshotRecord) error) error {
	root, err := safefile.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if m.Format == FormatV1 {
		for _, rel := range slices.Sorted(maps.Keys(m.Files)) {
			host, seq, ok := parseSnapshotPath(rel)
			if !ok {
				continue
			}
			f, err := openStored(root, rel, filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				return err
			}
			data, err := readBounded(f, filepath.Join(dir, filepath.FromSlash(rel)), MaxSnapshotBytes)
			f.Close()
			if err != nil {
				return err
			}
			if err := fn(SnapshotRecord{Path: rel, Host: host, Seq: seq, AtNs: -1, Data: data}); err != nil {
				return err
			}
		}
		return nil
	}
	if _, ok := m.Files[SnapshotsFile]; !ok {
		return nil
	}
	f, err := openStored(root, SnapshotsFile, filepath.Join(dir, SnapshotsFile))
	if err != nil {
		return err
	}
	defer f.Close()
	return readSnapshotRecords(f, fn)
}

// maxSnapshotHeader bounds a snapshots.records header line: the longest
// a peer id and two integers make is far below it.
const maxSnapshotHeader = 256

// readSnapshotRecords reads the records of a snapshots.records stream,
// each the header line appendSnapshotHeader writes and the bytes it
// counts, calling fn with each. A record that is not in that shape stops
// the read with an error naming its offset: a reader never guesses where
// the next record begins.
func readSnapshotRecords(r io.Reader, fn func(SnapshotRecord) error) error {
	br := bufio.NewReaderSize(r, 256<<10)
	var off int64
	var data []byte
	for {
		line, err := br.ReadSlice('\n')
		if len(line) == 0 && errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, bufio.ErrBufferFull) {
				return fmt.Errorf("%s at byte %d: a record header that does not end within %d bytes", SnapshotsFile, off, maxSnapshotHeader)
			}
			return fmt.Errorf("%s: %w", SnapshotsFile, err)
		}
		if len(line) > maxSnapshotHeader {
			return fmt.Errorf("%s at byte %d: a record header longer than %d bytes", SnapshotsFile, off, maxSnapshotHeader)
		}
		rec, n, ok := parseSnapshotHeader(line)
		if !ok {
			return fmt.Errorf("%s at byte %d: not a snapshot record header: %.80q", SnapshotsFile, off, line)
		}
		if n > MaxSnapshotBytes {
			return fmt.Errorf("%s at byte %d: %s is %d bytes; at most %d are read", SnapshotsFile, off, rec.Path, n, int64(MaxSnapshotBytes))
		}
		off += int64(len(line))
		if int64(cap(data)) < n {
			data = make([]byte, n)
		}
		rec.Data = data[:n]
		if _, err := io.ReadFull(br, rec.Data); err != nil {
			return fmt.Errorf("%s at byte %d: %s: %d bytes announced, the file ends first", SnapshotsFile, off, rec.Path, n)
		}
		off += n
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// parseSnapshotHeader reads a header line exactly as appendSnapshotHeader
// writes it, newline included; anything else is not one.
func parseSnapshotHeader(line []byte) (rec SnapshotRecord, n int64, ok bool) {
	i, ok := jsonscan.Match(line, 0, `{"snapshot":`)
	if !ok {
		return rec, 0, false
	}
	p, i, ok := jsonscan.String(line, i)
	if !ok {
		return rec, 0, false
	}
	rec.Path = string(p)
	host, seq, ok := parseSnapshotPath(rec.Path)
	if !ok {
		return rec, 0, false
	}
	rec.Host, rec.Seq = host, seq
	if i, ok = jsonscan.Match(line, i, `,"virtual_time_ns":`); !ok {
		return rec, 0, false
	}
	at, i, ok := jsonscan.Uint(line, i)
	if !ok || at > 1<<62 {
		return rec, 0, false
	}
	if i, ok = jsonscan.Match(line, i, `,"bytes":`); !ok {
		return rec, 0, false
	}
	size, i, ok := jsonscan.Uint(line, i)
	if !ok || size > 1<<62 {
		return rec, 0, false
	}
	rec.AtNs, n = int64(at), int64(size)
	// The header must be the one the writer makes of these values, byte
	// for byte: the digest hashes the header as written.
	want := appendSnapshotHeader(nil, rec.Path, rec.AtNs, n)
	return rec, n, bytes.Equal(line, want) && i == len(line)-2
}

// snapshotPath is the name of host's snapshot for request seq.
func snapshotPath(host string, seq int) string {
	return SnapshotsDir + "/" + host + "/" + strconv.Itoa(seq) + ".json"
}

// ContentSize is the number of bytes of the bundle file rel's content:
// its size on disk, or for a compressed file what it decompresses to
// (read to count it), so a reader that sizes its work by a file does the
// same for a bundle stored either way.
func ContentSize(dir, rel string) (int64, error) {
	f, err := OpenFile(dir, rel)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if s := f.(*storedFile); s.zr == nil {
		info, err := s.f.Stat()
		if err != nil {
			return 0, err
		}
		return info.Size(), nil
	}
	return io.Copy(io.Discard, f)
}
