package rafthost

import (
	"strconv"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
)

// history feeds the linearizable oracle client records, one an op:
// "put c0 a 0 10" is a put of a invoked at 0 and ok at 10; "read c0 a
// 20 30" a read answered a; "put c0 b 5 -" a put never answered.
func history(t *testing.T, ops ...string) *linearizable {
	t.Helper()
	o := newLinearizable()
	type ret struct {
		at  int64
		rec *rec
	}
	var rets []ret
	line := 0
	for i, s := range ops {
		f := strings.Fields(s)
		req := "n1#" + string(rune('A'+i))
		var call, end int64 = atoi(f[3]), -1
		if f[4] != "-" {
			end = atoi(f[4])
		}
		inv := &clientInvoke{client: "n1.c" + string(rune('0'+i%10)), req: req, op: f[0], key: f[1]}
		val := f[2]
		if f[0] == clientPut {
			inv.value = val
		}
		line++
		if err := o.observe(&rec{line: line, at: call, typ: tClientInvoke, p: hosts.Payload(inv.AppendJSON(nil))}); err != nil {
			t.Fatal(err)
		}
		if end >= 0 {
			r := &clientReturn{client: inv.client, req: req, result: resultOK}
			if f[0] == clientRead {
				r.value = val
			}
			rets = append(rets, ret{end, &rec{at: end, typ: tClientReturn, p: hosts.Payload(r.AppendJSON(nil))}})
		}
	}
	for _, r := range rets { // answers after every invoke: the line order does not matter to the oracle
		line++
		r.rec.line = line
		if err := o.observe(r.rec); err != nil {
			t.Fatal(err)
		}
	}
	o.finish(1 << 40)
	return o
}

func atoi(s string) int64 {
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	return n
}

// TestLinearizable_StaleReadFailsWithItsWindow: a read of a value
// overwritten by a put acknowledged before the read began is a
// violation; the evidence is the smallest window — the two puts and the
// read — not the operations around it.
func TestLinearizable_StaleReadFailsWithItsWindow(t *testing.T) {
	o := history(t,
		"put c0 a 0 10",
		"read c0 a 12 14",
		"put c1 x 13 15",
		"put c0 b 20 30",
		"read c1 x 31 33",
		"read c0 a 40 50", // stale: b was acknowledged at 30
		"put c0 d 60 70",
		"read c0 d 80 90",
	)
	res := o.result()
	if res.Outcome != hosts.Fail {
		t.Fatalf("%s: %s", res.Outcome, res.Reason)
	}
	for _, want := range []string{"key c0", "these 3 operations", `put "a"`, `put "b"`, `read "a" [0.00000004s`} {
		if !strings.Contains(res.Reason, want) {
			t.Errorf("reason lacks %q: %s", want, res.Reason)
		}
	}
	if strings.Contains(res.Reason, `"d"`) || strings.Contains(res.Reason, "c1") {
		t.Errorf("the window holds operations it does not need: %s", res.Reason)
	}
	if len(res.Evidence) != 6 {
		t.Errorf("%d records cited, want the invoke and answer of each of 3", len(res.Evidence))
	}
}

// TestLinearizable_AnUnknownPutMayTakeEffectLate: a put never answered
// is pending, porcupine's way, with an infinite return: a read long
// after may see it, after a read that did not.
func TestLinearizable_AnUnknownPutMayTakeEffectLate(t *testing.T) {
	o := history(t,
		"put c0 a 0 10",
		"put c0 c 15 -",
		"read c0 a 20 30",
		"read c0 c 40 50",
	)
	if res := o.result(); res.Outcome != hosts.Pass || !strings.Contains(res.Reason, "1 put with an unknown outcome") {
		t.Fatalf("%s: %s", res.Outcome, res.Reason)
	}
	// Without its invoke before the read, no order explains it.
	o = history(t,
		"put c0 a 0 10",
		"read c0 c 20 30",
		"put c0 c 35 -",
	)
	if res := o.result(); res.Outcome != hosts.Fail {
		t.Fatalf("a read of a put invoked after it: %s: %s", res.Outcome, res.Reason)
	}
}

// TestLinearizable_TooLargeIsInconclusive: a key with more operations
// than the checker takes is Inconclusive, naming the key and the bound;
// the verdict depends on the history's size, never on the machine's
// speed.
func TestLinearizable_TooLargeIsInconclusive(t *testing.T) {
	defer func(n int) { maxKeyOps = n }(maxKeyOps)
	maxKeyOps = 1000
	o := newLinearizable()
	for i := range maxKeyOps + 1 {
		req := "n1#" + strconv.Itoa(i)
		inv := &clientInvoke{client: "n1.c0", req: req, op: clientPut, key: "c0", value: req}
		ret := &clientReturn{client: "n1.c0", req: req, result: resultOK}
		_ = o.observe(&rec{line: 2*i + 1, at: int64(10 * i), typ: tClientInvoke, p: hosts.Payload(inv.AppendJSON(nil))})
		_ = o.observe(&rec{line: 2*i + 2, at: int64(10*i + 5), typ: tClientReturn, p: hosts.Payload(ret.AppendJSON(nil))})
	}
	o.finish(1 << 40)
	res := o.result()
	if res.Outcome != hosts.Inconclusive || !strings.Contains(res.Reason, "key c0 has 1001 operations, over the 1000") {
		t.Fatalf("%s: %s", res.Outcome, res.Reason)
	}
}

// TestLinearizable_StepBoundIsInconclusive: a search that needs more
// of the model's steps than the bound is Inconclusive, whatever the
// machine: many concurrent puts never answered, and reads that pin
// each of them down in turn, make porcupine backtrack.
func TestLinearizable_StepBoundIsInconclusive(t *testing.T) {
	defer func(n int) { checkSteps = n }(checkSteps)
	checkSteps = 20_000
	c := &regCheck{}
	// 200 puts all overlapping, then reads needing an order of them
	// that only exhaustive search finds illegal.
	for i := range 200 {
		c.ops = append(c.ops, &linOp{key: "c0", value: "p" + strconv.Itoa(i), call: 0, ret: 1 << 40})
	}
	for i := range 200 {
		c.ops = append(c.ops, &linOp{key: "c0", read: true, value: "p" + strconv.Itoa((i*7)%200), call: int64(2 + i), ret: int64(2 + i)})
	}
	c.ops = append(c.ops, &linOp{key: "c0", read: true, value: "p0", call: 1000, ret: 1000})
	c.ops = append(c.ops, &linOp{key: "c0", read: true, value: "p1", call: 1001, ret: 1001})
	c.ops = append(c.ops, &linOp{key: "c0", read: true, value: "p0", call: 1002, ret: 1002})
	if got := c.check(allOps(len(c.ops)), false); got != checkBound {
		t.Fatalf("check = %d, want the bound (%d)", got, checkBound)
	}
}
