package sweep

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers returns w, or the number of usable cores when w <= 0.
func Workers(w int) int {
	if w > 0 {
		return w
	}
	return runtime.GOMAXPROCS(0)
}

// ordered runs work(i) for every i in [0, n) on the given number of
// worker goroutines. arrived(i, r) is called as each job finishes, in
// whatever order they finish (for work that must not wait, like pinning
// a failing seed); emit(i, r) is called in index order. Both run on the
// caller's goroutine, one call at a time. Once ctx is done no new job
// starts; a job that returns ok = false was abandoned and is reported to
// neither. ordered returns when every started job has returned, after
// emitting every finished one.
func ordered[R any](ctx context.Context, n uint64, workers int,
	work func(ctx context.Context, i uint64) (r R, ok bool),
	arrived func(i uint64, r R), emit func(i uint64, r R)) {
	type done struct {
		i  uint64
		r  R
		ok bool
	}
	var next atomic.Uint64
	results := make(chan done, workers)
	var wg sync.WaitGroup
	for range min(uint64(Workers(workers)), max(n, 1)) {
		wg.Add(1)
		go func() { //detlint:allow goroutine seed runs are independent engines sharing nothing; ordered emits their results in index order whatever order workers finish
			defer wg.Done()
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= n {
					return
				}
				r, ok := work(ctx, i)
				results <- done{i, r, ok}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }() //detlint:allow goroutine closes results once every worker returned; decides nothing

	pending := map[uint64]done{}
	cursor := uint64(0)
	for d := range results {
		if d.ok {
			arrived(d.i, d.r)
		}
		pending[d.i] = d
		for {
			p, ok := pending[cursor]
			if !ok {
				break
			}
			delete(pending, cursor)
			if p.ok {
				emit(p.i, p.r)
			}
			cursor++
		}
	}
	// Interrupted: jobs past a gap (one never started or abandoned) are
	// still reported, in index order.
	for ; len(pending) > 0; cursor++ {
		if p, ok := pending[cursor]; ok {
			delete(pending, cursor)
			if p.ok {
				emit(p.i, p.r)
			}
		}
	}
}
