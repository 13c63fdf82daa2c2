package bundle

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sync"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/safefile"
	"github.com/detsim/detsim/internal/scratch"
)

// ErrOutExists is wrapped by Create's error when the output path exists and
// is not a bundle. The CLI reports it as invalid usage (exit 2): the writer
// replaces old bundles but never anything else.
var ErrOutExists = errors.New("output path exists and is not a detsim bundle")

// eventsBufferSize is the events.ndjson write buffer. It bounds the
// writer's memory however long the run is, and is large enough that a
// write system call carries thousands of records.
const eventsBufferSize = 256 << 10

// buffers holds the write buffers of writers that are done with them
// (events.ndjson's and snapshots.records', both eventsBufferSize): a
// process that writes bundle after bundle (a benchmark, a test suite)
// takes one back rather than have the runtime zero and fault in a fresh
// quarter-megabyte twice a run, which cost a three-peer run more than
// its snapshots (docs/BENCHMARKS.md, "Buffers kept between runs"). A
// buffer is Reset before use, so nothing of an earlier bundle, not even
// bytes an aborted writer left unflushed, reaches the next one.
var buffers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, eventsBufferSize) }}

// takeBuffer is a write buffer from buffers, writing to dst.
func takeBuffer(dst io.Writer) *bufio.Writer {
	b := buffers.Get().(*bufio.Writer)
	b.Reset(dst)
	return b
}

// giveBuffer returns b to buffers, holding nothing of the file it wrote.
func giveBuffer(b *bufio.Writer) {
	if b != nil {
		b.Reset(nil)
		buffers.Put(b)
	}
}

// Writer builds one bundle. Create it, stream records with WriteEventLine
// and snapshots with WriteSnapshot, call FlushEvents before reading the
// events back for evaluation, then Finish to move the bundle into place.
//
// The bundle is built in <parent>/.<name>.detsim-tmp-*.stage, a
// scratch.Staged directory next to the output path, so the final rename
// never crosses a filesystem and moves the stage itself into place.
// Callers should `defer w.Abort()`: it removes the stage and its guard
// unless Finish succeeded; a signal handler's scratch.RemoveLive removes
// them too, and a later run beside them removes them if the process was
// killed outright. A Writer is used from one goroutine.
type Writer struct {
	out  string           // where Finish puts the bundle
	work *scratch.Entry   // the stage and its guard; removed by Finish or Abort
	lock *scratch.OutLock // held on out until Finish or Abort
	dir  string           // the bundle being built: work's stage
	// aside is the directory Finish moves the bundle it replaces into,
	// made only when there is one (install).
	aside *scratch.Entry

	events     *os.File
	eventsBuf  *bufio.Writer
	eventsHash hash.Hash
	trusted    bool   // the caller hashes the event lines (TrustEventsHash)
	eventsSum  string // the caller's hex sum, when trusted
	records    int64

	// files maps each finished file's bundle path to its hex SHA-256.
	files map[string]string
	// snaps is snapshots.records, created by the first snapshot; snapHash
	// hashes each record as it is written, before the buffer, so
	// SnapshotsSHA256 is current at any moment. written holds the
	// snapshots written, by path.
	snaps    *os.File
	snapsBuf *bufio.Writer
	snapHash hash.Hash
	written  map[string]bool
	// testbedDir says testbed/ exists.
	testbedDir bool

	state writerState
	err   error // first write failure; every later call returns it

	// manifest is what manifest.json says, once written.
	manifest Manifest
}

type writerState uint8

const (
	writing  writerState = iota // events.ndjson open
	flushed                     // events.ndjson complete and closed
	finished                    // bundle in place
	aborted                     // work directory removed
)

// Create checks the output path and prepares an empty bundle in a work
// directory beside it, creating out's parent directories if needed.
//
// out may be missing, or a bundle detsim wrote (provenBundle: a detsim
// manifest listing exactly the files present), which Finish replaces.
// Anything else existing at out — a file, a symbolic link, a directory
// that is not provably a bundle, a bundle holding files a user added —
// is refused with an error wrapping ErrOutExists, so a typo in --out can
// never delete a user's data. out inside a bundle is refused too.
//
// Create takes out's lock (an error wrapping ErrOutInUse when another
// run holds it) until Finish or Abort, and first removes the work
// directories that killed runs left beside out (restoring a bundle such
// a run had moved aside).
func Create(out string) (*Writer, error) {
	if out == "" {
		return nil, errors.New("bundle: output path is empty")
	}
	out = filepath.Clean(out)
	name := filepath.Base(out)
	if name == "." || name == ".." || name == string(filepath.Separator) {
		return nil, fmt.Errorf("bundle: output path %q must name a directory to create, not %q", out, name)
	}
	if b, err := insideBundle(out); err != nil {
		return nil, fmt.Errorf("bundle: checking output path: %w", err)
	} else if b != "" {
		return nil, fmt.Errorf("bundle: %s is inside the detsim bundle %s: %w; choose a path outside it", out, b, ErrOutExists)
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o777); err != nil {
		return nil, fmt.Errorf("bundle: creating parent of %s: %w", out, err)
	}
	lock, err := scratch.Lock(out)
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			lock.Release()
		}
	}()
	if err := sweepStale(out); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	if err := checkOut(out); err != nil {
		return nil, err
	}
	work, err := scratch.Staged(parent, workPrefix(out))
	if err != nil {
		return nil, fmt.Errorf("bundle: creating work directory for %s: %w", out, err)
	}
	w := &Writer{
		out:        out,
		work:       work,
		lock:       lock,
		dir:        work.Stage(),
		eventsHash: sha256.New(),
		files:      make(map[string]string),
		snapHash:   sha256.New(),
		written:    make(map[string]bool),
	}
	if err := w.open(); err != nil {
		_ = work.Remove()
		return nil, err
	}
	ok = true
	return w, nil
}

// open creates events.ndjson in the bundle's directory.
func (w *Writer) open() error {
	f, err := safefile.OpenPlain(filepath.Join(w.dir, EventsFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return fmt.Errorf("bundle: %w", err)
	}
	w.events = f
	w.eventsBuf = takeBuffer(hashingWriter{f, w.eventsHash})
	return nil
}

// hashingWriter writes to a file and feeds the same bytes to a hash, so
// events.ndjson's digest is known the moment its last byte is written.
type hashingWriter struct {
	f *os.File
	h hash.Hash
}

func (hw hashingWriter) Write(p []byte) (int, error) {
	n, err := hw.f.Write(p)
	hw.h.Write(p[:n])
	return n, err
}

// Dir returns the directory the bundle is being built in. The files in it
// are readable there until Finish moves it (events.ndjson only after
// FlushEvents).
func (w *Writer) Dir() string { return w.dir }

// WriteEventLine appends one line, as AppendEventLine builds it, to
// events.ndjson. The line must end in its only newline: a newline inside
// a record would split it in two for every reader.
func (w *Writer) WriteEventLine(line []byte) error {
	if err := w.usable(writing, "WriteEventLine"); err != nil {
		return err
	}
	if len(line) == 0 || bytes.IndexByte(line, '\n') != len(line)-1 {
		return fmt.Errorf("bundle: event line %d must end with its only newline: %.80q", w.records+1, line)
	}
	if _, err := w.eventsBuf.Write(line); err != nil {
		return w.fail(fmt.Errorf("bundle: writing %s: %w", EventsFile, err))
	}
	w.records++
	return nil
}

// WriteEventLines appends lines whole lines, as AppendEventLine builds
// them, to events.ndjson in one piece: a writer that serialises its
// records into one buffer of its own (the engine) hands it over so, and
// a full buffer goes to the file in one system call without being copied
// first. Every line must end in its only newline, as for WriteEventLine:
// b must end in a newline and hold exactly lines of them.
func (w *Writer) WriteEventLines(b []byte, lines int64) error {
	return w.WriteFoldedLines(b, lines, lines)
}

// WriteFoldedLines is WriteEventLines for lines that stand for records
// records, some of them folded lines (AppendFoldedEventLineAt): the
// manifest counts records, as the run and every reader number them.
func (w *Writer) WriteFoldedLines(b []byte, lines, records int64) error {
	if err := w.usable(writing, "WriteEventLines"); err != nil {
		return err
	}
	if lines == 0 && len(b) == 0 {
		return nil
	}
	if len(b) == 0 || b[len(b)-1] != '\n' || int64(bytes.Count(b, newline)) != lines {
		return fmt.Errorf("bundle: event lines %d to %d must each end with their only newline: %.80q", w.records+1, w.records+lines, b)
	}
	if _, err := w.eventsBuf.Write(b); err != nil {
		return w.fail(fmt.Errorf("bundle: writing %s: %w", EventsFile, err))
	}
	w.records += records
	return nil
}

var newline = []byte{'\n'}

// WriteSnapshotAt appends host hostID's answer to snapshot request seq,
// due at atNs (the request's at_ns), to snapshots.records as one record:
// the header line the run digest hashes,
//
//	{"snapshot":"snapshots/<hostID>/<seq>.json","virtual_time_ns":<atNs>,"bytes":<len(data)>}
//
// then data. The file is the digest's snapshot stream byte for byte, so
// its SHA-256 (SnapshotsSHA256) is the digest's second half and each byte
// is hashed once. Records go in the order they are written: the run's
// emission order. hostID must be a valid peer id ([A-Za-z0-9_-]{1,64});
// each (hostID, seq) may be written once.
func (w *Writer) WriteSnapshotAt(hostID string, seq int, atNs int64, data []byte) error {
	if err := w.usable(flushed, "WriteSnapshotAt"); err != nil {
		return err
	}
	if !hosts.ValidPeerID(hostID) {
		return fmt.Errorf("bundle: snapshot host id %q is not a peer id ([A-Za-z0-9_-]{1,64})", hostID)
	}
	if seq < 0 || atNs < 0 {
		return fmt.Errorf("bundle: snapshot %s/%d at %d: sequence number or time is negative", hostID, seq, atNs)
	}
	rel := snapshotPath(hostID, seq)
	if w.written[rel] {
		return fmt.Errorf("bundle: %s written twice", rel)
	}
	if w.snaps == nil {
		f, err := safefile.OpenPlain(filepath.Join(w.dir, SnapshotsFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			return w.fail(fmt.Errorf("bundle: %w", err))
		}
		w.snaps = f
		w.snapsBuf = takeBuffer(f)
	}
	w.written[rel] = true
	var hdr [160]byte
	h := appendSnapshotHeader(hdr[:0], rel, atNs, int64(len(data)))
	w.snapHash.Write(h)
	w.snapHash.Write(data)
	if _, err := w.snapsBuf.Write(h); err != nil {
		return w.fail(fmt.Errorf("bundle: writing %s: %w", SnapshotsFile, err))
	}
	if _, err := w.snapsBuf.Write(data); err != nil {
		return w.fail(fmt.Errorf("bundle: writing %s: %w", SnapshotsFile, err))
	}
	return nil
}

// SnapshotsSHA256 is the raw SHA-256 of the snapshot records written so
// far: the run digest's second half (RunDigestOf). The engine takes it
// rather than hashing the same bytes again.
func (w *Writer) SnapshotsSHA256() []byte { return w.snapHash.Sum(nil) }

// RunDigestOf is the run digest of this bundle: the events' raw SHA-256
// (the caller's, which it hashed as it wrote them) and SnapshotsSHA256,
// as RunDigest computes it for a run that writes its snapshots in the
// order RunDigest sorts them. A writer that is not the engine (a live
// run) uses it, so its digest follows the order it wrote.
func (w *Writer) RunDigestOf(eventsSHA256 []byte) string {
	return digestOf(eventsSHA256, w.SnapshotsSHA256())
}

// closeSnapshots completes snapshots.records, if any snapshot was written.
func (w *Writer) closeSnapshots() error {
	if w.snaps == nil {
		return nil
	}
	err := w.snapsBuf.Flush()
	if cerr := w.snaps.Close(); err == nil {
		err = cerr
	}
	w.snaps = nil
	giveBuffer(w.snapsBuf)
	w.snapsBuf = nil
	if err != nil {
		return w.fail(fmt.Errorf("bundle: completing %s: %w", SnapshotsFile, err))
	}
	w.files[SnapshotsFile] = hex.EncodeToString(w.snapHash.Sum(nil))
	return nil
}

// CopyTestbedFile copies the file at src into the bundle as
// testbed/<name> (a testbed run's own records: the delay line's draws),
// streaming it and recording its digest. name is one path element of
// [a-z0-9_.-]; each name may be written once. Verify accepts the file
// only in a bundle whose manifest says ModeTestbed.
func (w *Writer) CopyTestbedFile(name, src string) error {
	if err := w.usable(flushed, "CopyTestbedFile"); err != nil {
		return err
	}
	if !validTestbedName(name) {
		return fmt.Errorf("bundle: testbed file name %q: want one path element of [a-z0-9_.-]", name)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if !w.testbedDir {
		if err := os.Mkdir(filepath.Join(w.dir, TestbedDir), 0o777); err != nil {
			return w.fail(fmt.Errorf("bundle: %w", err))
		}
		w.testbedDir = true
	}
	rel := path.Join(TestbedDir, name)
	out, err := os.OpenFile(filepath.Join(w.dir, filepath.FromSlash(rel)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("bundle: %s written twice", rel)
		}
		return w.fail(fmt.Errorf("bundle: %w", err))
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return w.fail(fmt.Errorf("bundle: writing %s: %w", rel, err))
	}
	w.files[rel] = hex.EncodeToString(h.Sum(nil))
	return nil
}

func validTestbedName(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// FlushEvents completes events.ndjson: it flushes the buffer, closes the
// file and fixes its digest. It does not fsync (see writeFile: the
// manifest's hash catches a file a crash cut short). After it, the file can be read
// from Dir and no more events can be written. Calling it again does
// nothing.
func (w *Writer) FlushEvents() error {
	if w.state == flushed {
		return w.err
	}
	if err := w.usable(writing, "FlushEvents"); err != nil {
		return err
	}
	if w.trusted && w.eventsSum == "" {
		return w.fail(fmt.Errorf("bundle: TrustEventsHash without SetEventsSHA256"))
	}
	err := w.eventsBuf.Flush()
	if cerr := w.events.Close(); err == nil {
		err = cerr
	}
	w.events = nil
	giveBuffer(w.eventsBuf)
	w.eventsBuf = nil
	w.state = flushed
	if err != nil {
		return w.fail(fmt.Errorf("bundle: completing %s: %w", EventsFile, err))
	}
	if w.eventsSum != "" {
		w.files[EventsFile] = w.eventsSum
	} else {
		w.files[EventsFile] = hex.EncodeToString(w.eventsHash.Sum(nil))
	}
	return nil
}

// TrustEventsHash tells the writer that the caller hashes every line it
// passes to WriteEventLine and will hand over the sum with
// SetEventsSHA256 before FlushEvents, so the writer does not hash the same
// bytes again (the engine already hashes them for its run digest). Call it
// before the first WriteEventLine. Verify still recomputes the file's hash
// from disk.
func (w *Writer) TrustEventsHash() {
	w.trusted = true
	if w.eventsBuf != nil {
		w.eventsBuf.Reset(w.events)
	}
}

// SetEventsSHA256 gives the hex SHA-256 of the lines written, when
// TrustEventsHash was called.
func (w *Writer) SetEventsSHA256(sum string) { w.eventsSum = sum }

// Abort removes the work directory and everything in it. It does nothing
// after a successful Finish or a previous Abort, so it is safe to defer.
// An existing bundle at the output path is never touched by Abort.
func (w *Writer) Abort() {
	if w.state == finished || w.state == aborted {
		return
	}
	if w.events != nil {
		_ = w.events.Close()
		w.events = nil
	}
	if w.snaps != nil {
		_ = w.snaps.Close()
		w.snaps = nil
	}
	giveBuffer(w.eventsBuf)
	giveBuffer(w.snapsBuf)
	w.eventsBuf, w.snapsBuf = nil, nil
	_ = w.work.Remove()
	if w.aside != nil {
		_ = w.aside.Remove()
	}
	w.lock.Release()
	w.state = aborted
}

// usable returns the sticky error, or an error if the writer is past the
// latest state in which op is allowed.
func (w *Writer) usable(latest writerState, op string) error {
	if w.err != nil {
		return w.err
	}
	if w.state > latest {
		return fmt.Errorf("bundle: %s after %s", op, w.stateName())
	}
	return nil
}

func (w *Writer) stateName() string {
	switch w.state {
	case flushed:
		return "FlushEvents"
	case finished:
		return "Finish"
	case aborted:
		return "Abort"
	}
	return "Create"
}

// fail records err as the writer's sticky error: once a write fails the
// bundle is incomplete, and no later call may pretend otherwise. Every
// error it records is the filesystem refusing a write (disk full, quota,
// read-only, a file size limit), which IsWriteFailure recognises.
func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = writeFailure{err}
	}
	return w.err
}

// writeFailure marks an error as the filesystem's, not detsim's.
type writeFailure struct{ err error }

func (e writeFailure) Error() string { return e.err.Error() }
func (e writeFailure) Unwrap() error { return e.err }

// IsWriteFailure reports whether err (or an error it wraps) is the
// filesystem refusing to take the bundle — the environment's problem
// (exit 2 at the CLI), not a bug in detsim.
func IsWriteFailure(err error) bool {
	var wf writeFailure
	return errors.As(err, &wf)
}

// writeFile creates the bundle file rel (slash-separated) holding data
// and records its digest. Nothing in a bundle is fsynced: the rename in
// Finish makes a bundle appear whole or not at all to every reader, and
// durability across a power loss is the seed's job, not the disk's — a
// file a crash cut short is a hash mismatch Verify reports, and the
// bundle's scenario.toml regenerates all of it byte for byte. (Syncing
// cost more than a three-peer run itself: docs/decisions.md.)
func (w *Writer) writeFile(rel string, data []byte) error {
	if err := safefile.WriteNew(filepath.Join(w.dir, filepath.FromSlash(rel)), data, 0o666); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Op == "open" {
			if errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("bundle: %s written twice", rel)
			}
			return w.fail(fmt.Errorf("bundle: %w", err))
		}
		return w.fail(fmt.Errorf("bundle: writing %s: %w", rel, err))
	}
	sum := sha256.Sum256(data)
	w.files[rel] = hex.EncodeToString(sum[:])
	return nil
}
