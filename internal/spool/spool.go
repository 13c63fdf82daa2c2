// Package spool keeps the records of a run's real-time sources (nodes,
// daemons, a shaper), each in a file of its own in nondecreasing
// virtual_time_ns, and merges them into one bundle stream when the run
// ends: merge at the end, not a reorder window, because a window would
// have to guess how late a source's record can be, and a spool costs only
// disk. Used by package live and package testbed; outside the
// determinism fence.
package spool

import (
	"bufio"
	"bytes"
	"container/heap"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/detsim/detsim/bundle"
)

// Sink is one source's records, in nondecreasing virtual_time_ns, spooled
// to a file until the run ends and the sources are merged (merge).
type Sink struct {
	mu    sync.Mutex
	path  string
	f     *os.File
	w     *bufio.Writer
	err   error
	count *atomic.Int64 // the run's total, for progress
}

// NewSink creates path (which must not exist) for one source's records;
// count, shared by the run's sinks, counts every record written.
func NewSink(path string, count *atomic.Int64) (*Sink, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	return &Sink{path: path, f: f, w: bufio.NewWriterSize(f, 64<<10), count: count}, nil
}

// Write appends one record line; the line is the sink's from then on.
func (s *Sink) Write(line []byte) {
	s.mu.Lock()
	if s.err == nil {
		_, s.err = s.w.Write(line)
	}
	s.mu.Unlock()
	s.count.Add(1)
}

// Close flushes and closes the file, returning the first error the sink
// met; closing twice is harmless.
func (s *Sink) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return s.err
	}
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if err := s.f.Close(); s.err == nil {
		s.err = err
	}
	s.f = nil
	return s.err
}

// LineTime reads virtual_time_ns from the start of an event line.
func LineTime(line []byte) (int64, error) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"virtual_time_ns":`))
	if !ok {
		return 0, fmt.Errorf("not an event line: %.60q", line)
	}
	end := bytes.IndexByte(rest, ',')
	if end < 0 {
		return 0, fmt.Errorf("not an event line: %.60q", line)
	}
	return strconv.ParseInt(string(rest[:end]), 10, 64)
}

// cursor is one source file being merged. Its fields look like the
// testbed's delay-line packet's only by their types: nothing is shared.
type cursor struct {
	r    *bufio.Reader
	line []byte
	t    int64
	src  int
}

type cursors []*cursor

// sort.Interface by (time, source), alike in shape to the live node's and
// the testbed's heaps: each orders its own items.
func (c cursors) Len() int { return len(c) }
func (c cursors) Less(i, j int) bool {
	if c[i].t != c[j].t {
		return c[i].t < c[j].t
	}
	return c[i].src < c[j].src
}
func (c cursors) Swap(i, j int) { c[i], c[j] = c[j], c[i] }
func (c *cursors) Push(x any)   { *c = append(*c, x.(*cursor)) }
func (c *cursors) Pop() any {
	old := *c
	x := old[len(old)-1]
	*c = old[:len(old)-1]
	return x
}

func (c *cursor) next() (bool, error) {
	line, err := c.r.ReadBytes('\n')
	if errors.Is(err, io.EOF) {
		if len(line) > 0 {
			return false, fmt.Errorf("source %d ends in a cut line", c.src)
		}
		return false, nil
	}
	if err != nil {
		return false, err
	}
	t, err := LineTime(line)
	if err != nil {
		return false, err
	}
	c.line, c.t = line, t
	return true, nil
}

// Merge writes the records of every source file, each already in
// nondecreasing time, to w as one stream in nondecreasing time (ties keep
// source order), leaving out records stamped after end: the run ended
// there, and what nodes recorded while being stopped is not part of it.
// It returns the raw SHA-256 of what it wrote and how many records it
// left out. Memory is one line per source.
func Merge(paths []string, end int64, w *bundle.Writer) (sum []byte, late int64, err error) {
	h := sha256.New()
	var cs cursors
	for i, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, 0, err
		}
		defer f.Close()
		c := &cursor{r: bufio.NewReaderSize(f, 64<<10), src: i}
		ok, err := c.next()
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", p, err)
		}
		if ok {
			cs = append(cs, c)
		}
	}
	heap.Init(&cs)
	last := int64(-1 << 63)
	for len(cs) > 0 {
		c := cs[0]
		if c.t < last {
			return nil, 0, fmt.Errorf("%s: virtual_time_ns %d after %d: a source is out of order", paths[c.src], c.t, last)
		}
		last = c.t
		if c.t > end {
			late++
		} else if err := writeLine(w, h, c.line); err != nil {
			return nil, 0, err
		}
		ok, err := c.next()
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", paths[c.src], err)
		}
		if ok {
			heap.Fix(&cs, 0)
		} else {
			heap.Pop(&cs)
		}
	}
	return h.Sum(nil), late, nil
}

func writeLine(w *bundle.Writer, h hash.Hash, line []byte) error {
	h.Write(line)
	return w.WriteEventLine(line)
}

// Path is the file the sink writes.
func (s *Sink) Path() string { return s.path }
