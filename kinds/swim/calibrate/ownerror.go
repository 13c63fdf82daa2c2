package calibrate

import (
	"fmt"
	"strconv"

	"github.com/detsim/detsim/internal/bundleinfo"
)

// Recording is what a production recording says of its own error, which
// the report states in its header and beside every row it judges: a
// testbed's delay line releases packets late on a loaded machine, and a
// row judged against a recording whose lateness is large against its
// links judges the testbed as much as the model (docs/testbed.md, "The
// testbed's own error").
type Recording struct {
	// Note is the header's sentence.
	Note string `json:"note"`
	// Recorded is false for a testbed bundle made before its manifest
	// held the delay line's lateness: its error is unknown, never
	// assumed.
	Recorded bool `json:"recorded"`
	// Marked says the recording's manifest marks it (testbed.marked).
	Marked bool `json:"marked"`
	// Row is what every judged row carries: "recording marked",
	// "lateness not recorded", or "" for a recording within its bound.
	Row string `json:"row,omitempty"`
}

// Row markers.
const (
	rowMarked      = "recording marked"
	rowNotRecorded = "lateness not recorded"
)

// recordingOf reads a production bundle's own error from its manifest,
// or nil for a bundle that is not a testbed recording (a live run has
// no delay line; a simulated one no error of its own).
func recordingOf(info bundleinfo.Info) *Recording {
	tb := info.Testbed
	if tb == nil {
		return nil
	}
	l := tb.Lateness
	if l == nil {
		return &Recording{Row: rowNotRecorded,
			Note: "testbed delay line's lateness not recorded (the bundle was made before its manifest held it): the recording's own error is unknown"}
	}
	load := ""
	if ld := tb.Load; ld != nil {
		load = fmt.Sprintf("; 1-min load min %s, median %s, max %s on %d cores",
			loadText(ld.Load1Min), loadText(ld.Load1Median), loadText(ld.Load1Max), ld.CPUs)
	}
	if tb.Marked != "" {
		return &Recording{Recorded: true, Marked: true, Row: rowMarked,
			Note: "MARKED: " + tb.Marked + load + "; every judged row is marked"}
	}
	if l.Packets == 0 {
		return &Recording{Recorded: true, Note: "the testbed's delay line delayed no packet" + load}
	}
	return &Recording{Recorded: true,
		Note: fmt.Sprintf("delay line late by p50 %s, p99 %s, max %s over %d packets; p99 within 1/10 of the %s smallest latency asked%s",
			msText(l.P50Ns), msText(l.P99Ns), msText(l.MaxNs), l.Packets, msText(l.SmallestLatencyNs), load)}
}

// markRows puts the recording's marker beside every row it judges.
func markRows(rows []Row, rec *Recording) {
	if rec == nil || rec.Row == "" {
		return
	}
	for i := range rows {
		if rows[i].Status == Pass || rows[i].Status == Fail {
			rows[i].Recording = rec.Row
		}
	}
}

func msText(ns int64) string {
	return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64) + " ms"
}

func loadText(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
