package engine

import (
	"strconv"
	"sync"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
)

// emit records one event at the current virtual time. hi is the host the
// record is bound to, -1 for none (host_id null). Records are emitted in
// pop order, so events.ndjson is in nondecreasing virtual time and streams
// to disk with flat memory (DESIGN §4).
func (e *Engine) emit(hi int32, kindTag string, ev hosts.Event) {
	if f, ok := ev.(hosts.Folded); ok {
		e.emitFolded(hi, kindTag, f)
		return
	}
	e.st.records++
	hostID := ""
	if hi >= 0 {
		hostID = e.peers[hi]
	}
	if e.opts.Sink != nil {
		e.opts.Sink.Event(e.st.now, hostID, kindTag, ev)
		return
	}
	if e.opts.Headless {
		e.st.monitor.(TypedMonitor).ObserveEvent(e.st.records, e.st.now, hostID, kindTag, ev)
		return
	}
	start := len(e.pending)
	var at int
	e.pending, at = bundle.AppendEventLineAt(e.pending, e.st.now, e.envelope(hi, kindTag), ev)
	line := e.pending[start:]
	e.st.bytes += int64(len(line))
	switch {
	case e.lines != nil:
		e.unwritten++ // written with the batch, at the next flushDigest
	case e.opts.Writer != nil && e.err == nil:
		e.err = e.opts.Writer.WriteEventLine(line)
	}
	if e.opts.Tap != nil {
		e.opts.Tap(e.st.records, e.st.now, line)
	}
	if e.st.monitor != nil {
		payload := e.pending[at : len(e.pending)-2] // bundle.LinePayload(line)
		if bm, ok := e.st.monitor.(BuiltMonitor); ok && e.opts.JudgeBuilt {
			bm.ObserveBuilt(e.st.records, e.st.now, hostID, kindTag, ev, payload)
		} else {
			e.st.monitor.Observe(e.st.records, e.st.now, hostID, kindTag, ev.Type(), payload)
		}
	}
	if len(e.pending) >= e.flushAt {
		e.flushDigest()
	}
}

// emitFolded records the records of a hosts.Folded event: serialised as
// one folded line, written and hashed as such, unless the run serialises
// nothing (a Sink, a headless run) or its Writer cannot take folds, when
// they are emitted one by one as any other. Either way every record has
// its own line number and is judged as its own value, and a Tap sees its
// own line, so the verdicts, the cap on records and every reader's view
// of the run are those of the records one by one; only the bytes of
// events.ndjson, and so the digest, are the folded line's
// (docs/decisions.md, "One folded line, expanded at one point").
func (e *Engine) emitFolded(hi int32, kindTag string, f hosts.Folded) {
	n := f.Len()
	if !e.fold || n < 2 {
		for i := range n {
			e.emit(hi, kindTag, f.At(i))
		}
		return
	}
	first := e.st.records
	e.st.records += int64(n)
	start := len(e.pending)
	env := e.envelope(hi, kindTag)
	e.pending, _ = bundle.AppendFoldedEventLineAt(e.pending, e.st.now, env, f)
	e.st.bytes += int64(len(e.pending) - start)
	if e.lines != nil {
		e.unwritten++
		e.unfolded += int64(n - 1)
	}
	if e.opts.Tap != nil || e.st.monitor != nil {
		hostID := ""
		if hi >= 0 {
			hostID = e.peers[hi]
		}
		tm, typed := e.st.monitor.(TypedMonitor)
		typed = typed && e.opts.JudgeBuilt && e.opts.Tap == nil
		for i := range n {
			ev, line := f.At(i), first+int64(i)+1
			if typed {
				tm.ObserveEvent(line, e.st.now, hostID, kindTag, ev)
				continue
			}
			var at int
			e.scratch, at = bundle.AppendEventLineAt(e.scratch[:0], e.st.now, env, ev)
			if e.opts.Tap != nil {
				e.opts.Tap(line, e.st.now, e.scratch)
			}
			if e.st.monitor != nil {
				e.st.monitor.Observe(line, e.st.now, hostID, kindTag, ev.Type(), e.scratch[at:len(e.scratch)-2])
			}
		}
	}
	if len(e.pending) >= e.flushAt {
		e.flushDigest()
	}
}

// envelope returns the record envelope for host hi (-1: none) and
// kindTag, encoded once per run.
func (e *Engine) envelope(hi int32, kindTag string) bundle.Envelope {
	switch {
	case hi < 0 && kindTag == engineTag:
		return e.nullEnvelope
	case hi < 0:
		return bundle.NewEnvelope("", kindTag)
	case kindTag == engineTag:
		return e.envelopes[hi][1]
	case kindTag == e.st.hosts[hi].kind.tag:
		return e.envelopes[hi][0]
	}
	return bundle.NewEnvelope(e.peers[hi], kindTag)
}

// pendingFlush is how many serialised bytes the engine collects before
// hashing them: SHA-256 over a few kilobytes at once costs a fraction of
// hashing every hundred-byte line on its own. writeFlush is the same
// when the batch also goes to an EventLinesWriter: large enough that
// the writer passes it straight to the file (its buffer is no larger),
// so a 1000-peer run's 340 MB take some 1 300 write calls and no copy.
const (
	pendingFlush = 16 << 10
	writeFlush   = 256 << 10
)

// flushDigest hashes the records serialised since the last flush, and
// writes them when the Writer takes them in batches. Digest,
// EventsSHA256, Checkpoint and snapshots flush first, so the digest
// never depends on where the batches fell, and the file is whole when
// the events' hash is taken.
func (e *Engine) flushDigest() {
	if len(e.pending) > 0 {
		e.st.digest.Write(e.pending)
		switch {
		case e.err != nil:
		case e.unfolded > 0:
			e.err = e.folds.WriteFoldedLines(e.pending, e.unwritten, e.unwritten+e.unfolded)
		case e.lines != nil:
			e.err = e.lines.WriteEventLines(e.pending, e.unwritten)
		}
		e.pending, e.unwritten, e.unfolded = e.pending[:0], 0, 0
	}
	if e.st.done && e.lines != nil && e.pending != nil {
		// The run is over: its batch buffer goes to the next run's
		// engine (batches). An engine stepped again after a Restore
		// grows a buffer of its own.
		b := e.pending
		batches.Put(&b)
		e.pending = nil
	}
}

// batches holds the record buffers of runs that have ended, for the next
// engine that writes its records in batches (writeFlush): a process
// running bundle after bundle (the side-by-side benchmark, a test suite)
// reuses one rather than have the runtime zero and fault in a fresh
// quarter-megabyte a run (docs/BENCHMARKS.md, "Buffers kept between
// runs"). What a buffer held is never read: an engine appends to it from
// length 0.
var batches sync.Pool // of *[]byte

// takeBatch is an empty record buffer with room for n bytes.
func takeBatch(n int) []byte {
	if p, ok := batches.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]byte, 0, n)
}

// snapshot records one host's snapshot for snapshot request seq.
func (e *Engine) snapshot(hostID string, seq int, data []byte) {
	e.st.snaps++
	e.st.bytes += int64(len(data))
	if e.opts.Sink != nil {
		e.opts.Sink.Snapshot(e.st.now, hostID, seq, data)
		return
	}
	if e.opts.Headless {
		return // nothing judges a snapshot, and nothing hashes it here
	}
	if sw, ok := e.opts.Writer.(SnapshotRecordWriter); ok {
		// The writer writes and hashes the same record; Digest takes its
		// hash.
		if e.err == nil {
			e.err = sw.WriteSnapshotAt(hostID, seq, e.st.now, data)
		}
		return
	}
	h := make([]byte, 0, 96)
	h = append(h, `{"snapshot":"snapshots/`...)
	h = append(h, hostID...)
	h = append(h, '/')
	h = strconv.AppendInt(h, int64(seq), 10)
	h = append(h, `.json","virtual_time_ns":`...)
	h = strconv.AppendInt(h, e.st.now, 10)
	h = append(h, `,"bytes":`...)
	h = strconv.AppendInt(h, int64(len(data)), 10)
	h = append(h, "}\n"...)
	e.st.snapHash.Write(h)
	e.st.snapHash.Write(data)
	if sw, ok := e.opts.Writer.(snapshotFileWriter); ok && e.err == nil {
		e.err = sw.WriteSnapshot(hostID, seq, data)
	}
}
