package rafthost

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/detsim/detsim/hosts"
)

// linearizable is linearizable {}: the clients' history (client_invoke,
// client_return) is linearizable, key by key, as a register whose
// absent value reads "" — checked by porcupine, the checker etcd's
// robustness tests use. A put that got ok spans its invoke to its
// answer; one without an answer (unknown, or its member's process
// ended) may take effect at any time after its invoke, porcupine's
// pending operation with an infinite return; a put that failed never
// happened; a read without an ok says nothing and is left out.
//
// The bound is work, not time: each key's check may take checkSteps of
// the model's steps, counted, so the same history always gets the same
// verdict on any machine; past it the verdict is Inconclusive, naming
// the key and its size. A key with more than maxKeyOps operations is
// Inconclusive without a search.
//
// On a violation the evidence is the smallest window found: the
// shortest run of the key's operations, in invoke order, ending where
// the history first stops being linearizable, that no value the key
// held before makes linearizable (with the put each of its reads saw),
// then shrunk one operation at a time while it stays so.
type linearizable struct {
	res   hosts.Result
	ops   []*linOp
	byReq map[string]*linOp // lookup only: decisions walk ops
}

// linOp is one client operation.
type linOp struct {
	client, req, key string
	read             bool
	value            string // a put's value; a read's answer
	result           string // "" while unanswered
	call, ret        int64
	invoke, answer   hosts.Cite
}

// The checker's bounds (docs/raft.md, "Clients"): variables only so a
// test can reach them without building histories the size of the real
// ones.
var (
	checkSteps = 1 << 20
	maxKeyOps  = 50_000
)

// windowOps bounds the window shrunk one operation at a time.
const windowOps = 64

func newLinearizable() *linearizable { return &linearizable{byReq: map[string]*linOp{}} }

func (o *linearizable) reads(typ string) bool { return typ == tClientInvoke || typ == tClientReturn }

func (o *linearizable) observe(r *rec) error {
	req, err := r.str("req")
	if err != nil {
		return err
	}
	if r.typ == tClientInvoke {
		op := &linOp{client: r.text("client"), req: req, key: r.text("key"), read: r.text("op") == clientRead,
			value: r.text("value"), call: r.at, ret: math.MaxInt64, invoke: r.cite()}
		o.ops = append(o.ops, op)
		o.byReq[req] = op
		return nil
	}
	op, ok := o.byReq[req]
	if !ok || op.result != "" {
		return nil // an answer to nothing this run invoked, or a second: not a client's operation
	}
	delete(o.byReq, req)
	op.result, op.answer = r.text("result"), r.cite()
	if op.result == resultOK {
		op.ret = r.at
		if op.read {
			op.value = r.text("value")
		}
	}
	return nil
}

func (*linearizable) hold(int64) {}

func (o *linearizable) finish(int64) {
	byKey := map[string][]*linOp{}
	var puts, reads, unknown int
	for _, op := range o.ops {
		switch {
		case op.read && op.result == resultOK:
			reads++
		case op.read, op.result == resultFail:
			continue
		case op.result != resultOK:
			unknown++
			puts++
		default:
			puts++
		}
		byKey[op.key] = append(byKey[op.key], op)
	}
	if len(byKey) == 0 {
		o.res.Resolve(hosts.Inconclusive, "no client operation with an outcome to check was recorded (kind_config.clients)")
		return
	}
	var inconclusive []string
	for _, key := range slices.Sorted(maps.Keys(byKey)) {
		ops := byKey[key]
		if len(ops) > maxKeyOps {
			inconclusive = append(inconclusive, fmt.Sprintf("key %s has %d operations, over the %d the checker takes", key, len(ops), maxKeyOps))
			continue
		}
		c := &regCheck{ops: ops}
		switch c.check(allOps(len(ops)), false) {
		case checkBound:
			inconclusive = append(inconclusive, fmt.Sprintf("key %s's %d operations took more than the checker's bound of %d steps", key, len(ops), checkSteps))
			continue
		case checkOK:
			continue
		}
		win, anyInit := c.window()
		o.fail(key, ops, win, anyInit)
		return
	}
	summary := fmt.Sprintf("%s on %s (%d puts, %s with an unknown outcome; %d reads)",
		count(puts+reads, "operation", "operations"), count(len(byKey), "key", "keys"), puts, count(unknown, "put", "puts"), reads)
	if len(inconclusive) > 0 {
		o.res.Resolve(hosts.Inconclusive, summary+": "+strings.Join(inconclusive, "; ")+"; every other key is linearizable")
		return
	}
	o.res.Resolve(hosts.Pass, summary+": linearizable")
}

// fail resolves with the window as evidence.
func (o *linearizable) fail(key string, ops []*linOp, win []int, anyInit bool) {
	var b strings.Builder
	var cites []hosts.Cite
	for i, k := range win {
		op := ops[k]
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(op.describe())
		cites = append(cites, op.invoke)
		if op.result != "" {
			cites = append(cites, op.answer)
		}
	}
	before := "from the key's first value (absent)"
	if anyInit {
		before = "whatever the key held before"
	}
	o.res.Resolve(hosts.Fail, fmt.Sprintf("key %s is not linearizable: no order of these %s (of the key's %d) is legal %s: %s",
		key, count(len(win), "operation", "operations"), len(ops), before, b.String()), cites...)
}

// describe writes an operation for a reason: who, what, when.
func (op *linOp) describe() string {
	span := "[" + secs(op.call) + ", " + secs(op.ret) + "]"
	if op.ret == math.MaxInt64 {
		span = "[" + secs(op.call) + ", never answered]"
	}
	if op.read {
		return fmt.Sprintf("%s read %q %s", op.client, op.value, span)
	}
	return fmt.Sprintf("%s put %q %s", op.client, op.value, span)
}

func (o *linearizable) result() *hosts.Result { return &o.res }

func (o *linearizable) clone() oracle {
	c := &linearizable{res: o.res.Clone(), ops: make([]*linOp, len(o.ops)), byReq: make(map[string]*linOp, len(o.byReq))}
	for i, op := range o.ops {
		cp := *op
		c.ops[i] = &cp
		if o.byReq[op.req] == op {
			c.byReq[op.req] = &cp
		}
	}
	return c
}

// Outcomes of one bounded check.
const (
	checkOK = iota
	checkIllegal
	checkBound
)

// regCheck checks subsets of one key's operations with porcupine.
type regCheck struct {
	ops     []*linOp
	writer  map[string]int // a put's value → its index (lookup only)
	scratch []porcupine.Operation
}

// regState is the register: known false stands for any value the key
// held before a window (the first read fixes it).
type regState struct {
	known bool
	v     string
}

type regInput struct {
	read bool
	v    string
}

// check runs porcupine over the operations at idx (with the put each of
// their reads saw), from an absent value or, anyInit, from any.
func (c *regCheck) check(idx []int, anyInit bool) int {
	steps := 0
	model := porcupine.Model{
		Init: func() any { return regState{known: !anyInit} },
		Step: func(state, input, output any) (bool, any) {
			steps++
			if steps > checkSteps {
				return false, state // spent: the search ends, and says nothing
			}
			in, st := input.(regInput), state.(regState)
			if !in.read {
				return true, regState{known: true, v: in.v}
			}
			out := output.(string)
			if !st.known {
				return true, regState{known: true, v: out}
			}
			return out == st.v, st
		},
	}
	c.scratch = c.scratch[:0]
	for _, i := range c.closure(idx) {
		op := c.ops[i]
		p := porcupine.Operation{ClientId: i, Input: regInput{read: op.read, v: op.value}, Call: op.call, Return: op.ret}
		if op.read {
			p.Output = op.value
		}
		c.scratch = append(c.scratch, p)
	}
	res := porcupine.CheckOperationsTimeout(model, c.scratch, 0) // no wall-clock bound: the step count is the bound
	switch {
	case steps > checkSteps:
		return checkBound
	case res == porcupine.Ok:
		return checkOK
	}
	return checkIllegal
}

// closure is idx with the put each of its reads saw, in index order.
func (c *regCheck) closure(idx []int) []int {
	if c.writer == nil {
		c.writer = map[string]int{}
		for i, op := range c.ops {
			if !op.read {
				c.writer[op.value] = i
			}
		}
	}
	out := slices.Clone(idx)
	for _, i := range idx {
		if op := c.ops[i]; op.read {
			if w, ok := c.writer[op.value]; ok {
				out = append(out, w)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func allOps(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

func span(lo, hi int) []int {
	idx := make([]int, 0, hi-lo+1)
	for i := lo; i <= hi; i++ {
		idx = append(idx, i)
	}
	return idx
}

// window finds the smallest non-linearizable window of a key whose whole
// history is not linearizable. With the puts its reads saw, a set that
// is not linearizable stays so when operations are added, so both ends
// are found by bisection: the first prefix that fails, then the latest
// start from which, whatever the key held, it still fails.
func (c *regCheck) window() (win []int, anyInit bool) {
	n := len(c.ops)
	illegal := func(idx []int, anyInit bool) bool { return c.check(idx, anyInit) == checkIllegal }
	lo, hi := 0, n-1 // the prefix ending at hi fails; find the least such hi
	for lo < hi {
		mid := (lo + hi) / 2
		if illegal(span(0, mid), false) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	end := hi
	if !illegal(span(0, end), true) {
		return c.shrink(c.closure(span(0, end)), false), false
	}
	lo, hi = 0, end // the window from lo fails whatever came before; find the greatest such lo
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if illegal(span(mid, end), true) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return c.shrink(c.closure(span(lo, end)), true), true
}

// shrink drops operations from a small window, one at a time in order,
// while it stays non-linearizable and keeps the put each read saw.
func (c *regCheck) shrink(win []int, anyInit bool) []int {
	if len(win) > windowOps {
		return win
	}
	for k := 0; k < len(win); {
		rest := slices.Delete(slices.Clone(win), k, k+1)
		if c.needed(win[k], rest) || c.check(rest, anyInit) != checkIllegal {
			k++
			continue
		}
		win = rest
	}
	return win
}

// needed says whether put i is the put a read in rest saw.
func (c *regCheck) needed(i int, rest []int) bool {
	if c.ops[i].read {
		return false
	}
	for _, j := range rest {
		if op := c.ops[j]; op.read && op.value == c.ops[i].value {
			return true
		}
	}
	return false
}
