package calibrate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// corpusPair is a calibration scenario of the corpus and a copy of its
// testbed recording, whose manifest's testbed record edit changes.
func corpusPair(t *testing.T, name string, edit func(tb map[string]any)) (*scenarios.Scenario, string) {
	t.Helper()
	sc, err := scenarios.Load(filepath.Join("..", "..", "..", "scenarios", "calibration", name+".toml"), builtin.Registry())
	must(t, err)
	src := filepath.Join("..", "..", "..", "testdata", "calibration", name)
	if edit == nil {
		return sc, src
	}
	dir := filepath.Join(t.TempDir(), name)
	must(t, os.CopyFS(dir, os.DirFS(src)))
	path := filepath.Join(dir, bundle.ManifestFile)
	b, err := os.ReadFile(path)
	must(t, err)
	var m map[string]any
	must(t, json.Unmarshal(b, &m))
	edit(m["testbed"].(map[string]any))
	b, err = json.MarshalIndent(m, "", "  ")
	must(t, err)
	must(t, os.WriteFile(path, append(b, '\n'), 0o644))
	// The new members keep the bundle a bundle: verify passes.
	problems, err := bundle.Verify(dir)
	if err != nil || len(problems) > 0 {
		t.Fatalf("verify: %v %v", problems, err)
	}
	return sc, dir
}

// checkRows: every row calibration judged carries want beside it, and
// no other row does.
func checkRows(t *testing.T, r *Report, want string) {
	t.Helper()
	judged := 0
	for _, row := range r.Rows {
		w := ""
		if row.Status == Pass || row.Status == Fail {
			w = want
			judged++
		}
		if row.Recording != w {
			t.Errorf("%s (%s): recording %q, want %q", row.Metric, row.Status, row.Recording, w)
		}
	}
	if judged == 0 {
		t.Fatal("no row judged")
	}
	var out bytes.Buffer
	must(t, r.Write(&out))
	if want != "" && strings.Count(out.String(), "["+want+"]") != judged {
		t.Errorf("%d rows judged, %d marked %q in the table:\n%s", judged, strings.Count(out.String(), "["+want+"]"), want, out.String())
	}
}

// A testbed recording made before the manifest held the delay line's
// lateness (n3_memberlist's, 2026-12-02, as committed): calibration says
// its lateness was not recorded, in its header and beside every row it
// judges, and invents no figure.
func TestRun_OldTestbedBundle_LatenessNotRecorded(t *testing.T) {
	sc, prod := corpusPair(t, "n3_memberlist", nil)
	r, err := Run(sc, prod, Options{Seeds: 2})
	must(t, err)
	if r.Recording == nil || r.Recording.Recorded || r.Recording.Marked || !strings.Contains(r.Recording.Note, "lateness not recorded") {
		t.Fatalf("recording %+v", r.Recording)
	}
	checkRows(t, r, "lateness not recorded")
	var out bytes.Buffer
	must(t, r.Write(&out))
	if !strings.Contains(out.String(), "recording   testbed delay line's lateness not recorded") || strings.Contains(out.String(), "p99") && strings.Contains(out.String(), "late by") {
		t.Errorf("header:\n%s", out.String()[:min(out.Len(), 600)])
	}
}

// A marked recording: the header gives the manifest's reason, and every
// judged row says the recording is marked, in the table and the JSON.
func TestRun_MarkedTestbedBundle_SaysSoBesideEveryRow(t *testing.T) {
	const reason = "the delay line's p99 lateness 5.20 ms > 1/10 of the 45.0 ms smallest latency asked (1000 packets; p50 0.600 ms, max 31.0 ms)"
	sc, prod := corpusPair(t, "n3_default", func(tb map[string]any) {
		tb["lateness"] = bundle.TestbedLateness{Packets: 1000, P50Ns: 600_000, P99Ns: 5_200_000, MaxNs: 31_000_000, SmallestLatencyNs: 45_000_000}
		tb["load"] = bundle.TestbedLoad{CPUs: 2, Samples: 180, Load1Min: 3.1, Load1Median: 5.5, Load1Max: 7.6}
		tb["marked"] = reason
	})
	r, err := Run(sc, prod, Options{Seeds: 2})
	must(t, err)
	if r.Recording == nil || !r.Recording.Marked || !strings.Contains(r.Recording.Note, reason) || !strings.Contains(r.Recording.Note, "1-min load min 3.10, median 5.50, max 7.60 on 2 cores") {
		t.Fatalf("recording %+v", r.Recording)
	}
	checkRows(t, r, "recording marked")
	var out bytes.Buffer
	must(t, r.WriteJSON(&out))
	var j struct {
		Recording struct {
			Marked bool   `json:"marked"`
			Note   string `json:"note"`
		} `json:"recording"`
		Rows []struct {
			Status    Status `json:"status"`
			Recording string `json:"recording"`
		} `json:"rows"`
	}
	must(t, json.Unmarshal(out.Bytes(), &j))
	if !j.Recording.Marked || !strings.Contains(j.Recording.Note, reason) {
		t.Errorf("JSON recording %+v", j.Recording)
	}
	for _, row := range j.Rows {
		if (row.Status == Pass || row.Status == Fail) != (row.Recording == "recording marked") {
			t.Errorf("JSON row %+v", row)
		}
	}
}

// A recording within its bound: the header states the lateness and the
// load it was measured at; no row carries a marker.
func TestRun_UnmarkedTestbedBundle_StatesItsLateness(t *testing.T) {
	sc, prod := corpusPair(t, "n3_default", func(tb map[string]any) {
		tb["lateness"] = bundle.TestbedLateness{Packets: 1000, P50Ns: 600_000, P99Ns: 1_400_000, MaxNs: 9_000_000, SmallestLatencyNs: 45_000_000}
	})
	r, err := Run(sc, prod, Options{Seeds: 2})
	must(t, err)
	if r.Recording == nil || !r.Recording.Recorded || r.Recording.Marked || !strings.Contains(r.Recording.Note, "p99 1.400 ms, max 9.000 ms over 1000 packets; p99 within 1/10 of the 45.000 ms smallest latency asked") {
		t.Fatalf("recording %+v", r.Recording)
	}
	checkRows(t, r, "")
}

// A live recording has no delay line: no note, no marker.
func TestRun_LiveBundle_NoRecordingNote(t *testing.T) {
	sc, prod := corpusPair(t, "executor_n3_default", nil)
	r, err := Run(sc, prod, Options{Seeds: 1})
	must(t, err)
	if r.Recording != nil {
		t.Errorf("recording %+v", r.Recording)
	}
	checkRows(t, r, "")
}
