package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Metric is one table: a number each run gives.
type Metric struct {
	Title   string
	Value   func(Result) int64
	Latency bool // Value is a duration in ns, -1 for "not within the run"
}

func views(subject, observer Class, f func(Tally) int) func(Result) int64 {
	return func(r Result) int64 { return int64(f(r.Views[subject][observer])) }
}

func dead(t Tally) int    { return t.Dead }
func suspect(t Tally) int { return t.Suspect }
func accused(t Tally) int { return t.Accused }

var (
	deadAtHealthy     = Metric{Title: "Healthy members marked dead, in healthy members' views", Value: views(Healthy, Healthy, dead)}
	deadAtSlow        = Metric{Title: "Healthy members marked dead, in the slow members' own views", Value: views(Healthy, Slow, dead)}
	slowDeadAtHealthy = Metric{Title: "Slow members marked dead, in healthy members' views", Value: views(Slow, Healthy, dead)}
	suspectAtHealthy  = Metric{Title: "Healthy members marked suspect, in healthy members' views", Value: views(Healthy, Healthy, suspect)}
	firstDetection    = Metric{Title: "The crash: first detection, seconds after the kill", Value: func(r Result) int64 { return r.FirstNs }, Latency: true}
	fullDissem        = Metric{Title: "The crash: full dissemination, seconds after the kill", Value: func(r Result) int64 { return r.FullNs }, Latency: true}
)

// Metrics are the tables, in the order printed.
var Metrics = []Metric{
	deadAtHealthy,
	deadAtSlow,
	suspectAtHealthy,
	{Title: "Healthy members marked suspect, in the slow members' own views", Value: views(Healthy, Slow, suspect)},
	{Title: "Accusations of healthy members by healthy members", Value: views(Healthy, Healthy, accused)},
	{Title: "Accusations of healthy members by slow members", Value: views(Healthy, Slow, accused)},
	slowDeadAtHealthy,
	{Title: "Slow members marked suspect, in healthy members' views", Value: views(Slow, Healthy, suspect)},
	firstDetection,
	fullDissem,
}

// Write prints the report as the markdown docs/lifeguard.md holds: a
// caption, one table per metric (a row per delay, a column per
// variant), and SWIM against Lifeguard when the report has both.
func Write(w io.Writer, r *Report) {
	s := r.Setup
	fmt.Fprintf(w, "Printed by `%s`. ", CommandLine(r.Seeds, r.Costs))
	fmt.Fprintf(w, "%d members, %d of them slow for the whole run; ", s.Members, s.Slow)
	if s.Killed != "" {
		fmt.Fprintf(w, "the healthy %s crashes at %s; ", s.Killed, seconds(s.KillAt))
	}
	fmt.Fprintf(w, "%s runs; seeds 1–%d. A cell is the median over the seeds, "+
		"then [lowest–highest] unless every seed gave the same; "+
		"a latency of — was not reached within the run. "+
		"A row is the slow members' recv_cost_ns. Columns: ", seconds(s.DurationNs), r.Seeds)
	for i, v := range r.Variants {
		if i > 0 {
			fmt.Fprint(w, "; ")
		}
		fmt.Fprintf(w, "%s = %s", v.Name, configText(v.Config))
	}
	fmt.Fprint(w, ".\n")
	for _, m := range Metrics {
		fmt.Fprintf(w, "\n### %s\n\n| recv_cost_ns |", m.Title)
		for _, v := range r.Variants {
			fmt.Fprintf(w, " %s |", v.Name)
		}
		fmt.Fprint(w, "\n|---|")
		fmt.Fprint(w, strings.Repeat("---:|", len(r.Variants)))
		fmt.Fprintln(w)
		for c, cost := range r.Costs {
			fmt.Fprintf(w, "| %s |", millis(cost))
			for v := range r.Variants {
				fmt.Fprintf(w, " %s |", spread(m, r.Runs[v][c]))
			}
			fmt.Fprintln(w)
		}
	}
	writeComparison(w, r)
}

// writeComparison prints SWIM (the first variant) against Lifeguard (the
// second) per delay: the counts summed over the seeds, as the paper's
// rates are totals, and the latencies' medians.
func writeComparison(w io.Writer, r *Report) {
	if len(r.Variants) < 2 || r.Variants[0].Name != "SWIM" || r.Variants[1].Name != "Lifeguard" {
		return
	}
	fmt.Fprint(w, "\n### SWIM against Lifeguard\n\n"+
		"Counts summed over the seeds, SWIM's first; \"N× fewer\": Lifeguard's count is SWIM's divided by N. "+
		"Latencies: SWIM's median → Lifeguard's, in seconds.\n\n"+
		"| recv_cost_ns | healthy marked dead, healthy views | healthy marked dead, slow members' views | slow marked dead, healthy views | healthy marked suspect, healthy views | accusations of healthy members | first detection | full dissemination |\n"+
		"|---|---:|---:|---:|---:|---:|---:|---:|\n")
	sum := func(runs []Result, f func(Result) int64) int64 {
		var n int64
		for _, x := range runs {
			n += f(x)
		}
		return n
	}
	accusations := func(x Result) int64 {
		return int64(x.Views[Healthy][Healthy].Accused + x.Views[Healthy][Slow].Accused)
	}
	counts := []func(Result) int64{deadAtHealthy.Value, deadAtSlow.Value, slowDeadAtHealthy.Value, suspectAtHealthy.Value, accusations}
	for c, cost := range r.Costs {
		a, b := r.Runs[0][c], r.Runs[1][c]
		fmt.Fprintf(w, "| %s |", millis(cost))
		for _, f := range counts {
			fmt.Fprintf(w, " %s |", ratio(sum(a, f), sum(b, f)))
		}
		for _, m := range []Metric{firstDetection, fullDissem} {
			fmt.Fprintf(w, " %s → %s |", latency(median(m, a)), latency(median(m, b)))
		}
		fmt.Fprintln(w)
	}
}

// ratio compares SWIM's count a with Lifeguard's b.
func ratio(a, b int64) string {
	if a == 0 || b == 0 {
		return fmt.Sprintf("%d vs %d", a, b)
	}
	hi, lo, word := a, b, "fewer"
	if b > a {
		hi, lo, word = b, a, "more"
	}
	tenths := (hi*10 + lo/2) / lo
	return fmt.Sprintf("%d vs %d (%d.%d× %s)", a, b, tenths/10, tenths%10, word)
}

// sorted are m's values over runs, ascending, "not within the run"
// (a latency of -1) last.
func sorted(m Metric, runs []Result) []int64 {
	xs := make([]int64, len(runs))
	for i, x := range runs {
		xs[i] = m.Value(x)
	}
	slices.SortFunc(xs, func(a, b int64) int {
		if m.Latency && (a < 0) != (b < 0) {
			if a < 0 {
				return 1
			}
			return -1
		}
		return int(min(max(a-b, -1), 1))
	})
	return xs
}

// median is the lower median, always a value some seed gave.
func median(m Metric, runs []Result) int64 {
	xs := sorted(m, runs)
	if len(xs) == 0 {
		return -1
	}
	return xs[(len(xs)-1)/2]
}

// spread is a cell: median, then [lowest–highest] when they differ as
// shown (latencies equal to a tenth of a second are the same).
func spread(m Metric, runs []Result) string {
	xs := sorted(m, runs)
	if len(xs) == 0 {
		return "—"
	}
	show := func(x int64) string { return strconv.FormatInt(x, 10) }
	if m.Latency {
		show = latency
	}
	med, lo, hi := show(xs[(len(xs)-1)/2]), show(xs[0]), show(xs[len(xs)-1])
	if lo == hi {
		return med
	}
	return fmt.Sprintf("%s [%s–%s]", med, lo, hi)
}

// latency is ns as seconds to a tenth, "—" for not within the run.
func latency(ns int64) string {
	if ns < 0 {
		return "—"
	}
	tenths := (ns + 50_000_000) / 100_000_000
	return fmt.Sprintf("%d.%d", tenths/10, tenths%10)
}

func seconds(ns int64) string {
	if ns%1_000_000_000 == 0 {
		return strconv.FormatInt(ns/1_000_000_000, 10) + " s"
	}
	return latency(ns) + " s"
}

func millis(ns int64) string { return strconv.FormatInt(ns/1_000_000, 10) + " ms" }

// configText is a variant's kind_config as the legend shows it.
func configText(cfg map[string]any) string {
	if len(cfg) == 0 {
		return "the defaults"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(cfg)) {
		parts = append(parts, fmt.Sprintf("`%s = %v`", k, cfg[k]))
	}
	return strings.Join(parts, ", ")
}
