package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// valid is the smallest scenario the loader accepts; the table below breaks
// it one rule at a time.
var valid = `name = "t"
seed = 1
duration_ns = 10_000
[default_tick]
period_ns = 100
[default_link]
bandwidth_bps = 1000
` + echoPeers("a", "b", "c")

// with returns valid with old replaced by new (old must occur).
func with(old, new string) string {
	if !strings.Contains(valid, old) {
		panic("test bug: " + old + " not in valid")
	}
	return strings.Replace(valid, old, new, 1)
}

// wantParseErrs fails t unless parsing src as t.toml fails with exactly
// the error lines want, in order.
func wantParseErrs(t *testing.T, src string, want ...string) {
	t.Helper()
	if got := parseErrs(t, src); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// parseErrs parses src as t.toml and returns its error lines.
func parseErrs(t *testing.T, src string) []string {
	t.Helper()
	s, err := Parse("t.toml", []byte(src), testRegistry(), noFiles)
	if err == nil {
		t.Fatalf("Parse succeeded, want errors; scenario %+v", s)
	}
	if s != nil {
		t.Errorf("Parse returned a scenario together with errors")
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error is %T, want Errors", err)
	}
	return strings.Split(err.Error(), "\n")
}

func TestParse_RejectsInvalid_8_2(t *testing.T) {
	many := strings.Repeat("[[peers]]\nkind = \"echo\"\n", MaxPeers+1)
	// 1 025 "* → pK" entries, each its own latency, and 1 025 "pK → *",
	// each its own bandwidth: every pair of p peers is a policy of its
	// own, a million and more regions.
	var regions strings.Builder
	for i := range 1025 {
		fmt.Fprintf(&regions, "[[peers]]\nid = \"p%d\"\nkind = \"echo\"\n", i)
	}
	for i := range 1025 {
		fmt.Fprintf(&regions, "[[links]]\nfrom = \"*\"\nto = \"p%d\"\nlatency_ns = %d\n[[links]]\nfrom = \"p%d\"\nto = \"*\"\nbandwidth_bps = %d\n", i, i+1, i, i+1)
	}
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"toml syntax error has line and column", "name = \"t\"\nseed = = 1\n",
			[]string{"t.toml: line 2, column 8: TOML syntax error: expected value but found '=' instead"}},
		{"empty file lists every missing requirement", "",
			[]string{
				"t.toml: default_link: missing (required table)",
				"t.toml: default_tick: missing (required table)",
				"t.toml: duration_ns: missing (required)",
				"t.toml: name: missing (required)",
				"t.toml: peers: missing (at least one [[peers]] entry is required)",
			}},
		{"unknown top-level key in ms", with("seed = 1", "seed = 1\nduration_ms = 5"),
			[]string{"t.toml: duration_ms: unknown key; times are integer nanoseconds: did you mean duration_ns?"}},
		{"unknown top-level key", with("seed = 1", "sede = 1"),
			[]string{"t.toml: sede: unknown key (allowed here: name, seed, duration_ns, early_terminate_on_all_assertions_resolved, default_tick, default_link, peers, links, mutations, snapshots, assertions)"}},
		{"latency_ms is rejected with a hint", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nlatency_ms = 20"),
			[]string{"t.toml: default_link.latency_ms: unknown key; times are integer nanoseconds: did you mean latency_ns?"}},
		{"latency in seconds is rejected with a hint", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nlatency_s = 2"),
			[]string{"t.toml: default_link.latency_s: unknown key; times are integer nanoseconds: did you mean latency_ns?"}},
		{"percent is rejected with a hint", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nloss_prob_percent = 2"),
			[]string{"t.toml: default_link.loss_prob_percent: unknown key; probabilities are integer parts per million: did you mean loss_prob_ppm?"}},
		{"bandwidth without unit gets a hint", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nbandwidth = 5"),
			[]string{"t.toml: default_link.bandwidth: unknown key; bandwidth is integer bytes per second: did you mean bandwidth_bps?"}},
		{"negative latency", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nlatency_ns = -1"),
			[]string{"t.toml: default_link.latency_ns: must not be negative, got -1"}},
		{"float latency", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nlatency_ns = 1.5"),
			[]string{"t.toml: default_link.latency_ns: must be an integer, got float 1.5 (use an integer in the unit the key names)"}},
		{"zero bandwidth", with("bandwidth_bps = 1000", "bandwidth_bps = 0"),
			[]string{"t.toml: default_link.bandwidth_bps: must be greater than 0, got 0"}},
		{"missing bandwidth", with("bandwidth_bps = 1000", "latency_ns = 5"),
			[]string{"t.toml: default_link.bandwidth_bps: missing (required: bytes per second, > 0)"}},
		{"latency above the overflow bound", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nlatency_ns = 17592186044417"),
			[]string{"t.toml: default_link.latency_ns: must be at most 2^44 ns (≈4.9 virtual hours), got 17592186044417"}},
		{"jitter above the table bound", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\njitter_stddev_ns = 1099511627777"),
			[]string{"t.toml: default_link.jitter_stddev_ns: must be at most 2^40 ns (≈18 virtual minutes), got 1099511627777"}},
		{"probability above one million", with("bandwidth_bps = 1000", "bandwidth_bps = 1000\nreorder_prob_ppm = 1000001"),
			[]string{"t.toml: default_link.reorder_prob_ppm: must be at most 1000000 ppm, got 1000001"}},
		{"duration above the overflow bound", with("duration_ns = 10_000", "duration_ns = 1125899906842625"),
			[]string{"t.toml: duration_ns: must be at most 2^50 ns (≈13 virtual days), got 1125899906842625"}},
		{"zero duration", with("duration_ns = 10_000", "duration_ns = 0"),
			[]string{"t.toml: duration_ns: must be greater than 0, got 0"}},
		{"negative seed", with("seed = 1", "seed = -3"),
			[]string{"t.toml: seed: must not be negative, got -3"}},
		{"seed of the wrong type", with("seed = 1", `seed = "7"`),
			[]string{`t.toml: seed: must be an integer, got string "7"`}},
		{"early termination not a bool", with("seed = 1", "seed = 1\nearly_terminate_on_all_assertions_resolved = 1"),
			[]string{"t.toml: early_terminate_on_all_assertions_resolved: must be a boolean, got integer 1"}},
		{"zero tick period", with("period_ns = 100", "period_ns = 0"),
			[]string{"t.toml: default_tick.period_ns: must be greater than 0, got 0"}},
		{"name with a control character", with(`name = "t"`, `name = "a\u0007b"`),
			[]string{`t.toml: name: "a\ab": '\a' is not allowed (a scenario name is 1 to 64 of A-Z a-z 0-9 _ - . and names the bundle directory)`}},
		{"duplicate peer ids", with(`id = "b"`, `id = "a"`),
			[]string{`t.toml: peers[#1].id: duplicate peer id "a" (first declared as peers[#0])`}},
		{"peer id with a space", with(`id = "b"`, `id = "b c"`),
			[]string{`t.toml: peers[#1].id: "b c" is not a valid peer id (1 to 64 of A-Z a-z 0-9 _ -)`}},
		{"peer id too long", with(`id = "b"`, `id = "`+strings.Repeat("x", 65)+`"`),
			[]string{`t.toml: peers[#1].id: "` + strings.Repeat("x", 65) + `" is not a valid peer id (1 to 64 of A-Z a-z 0-9 _ -)`}},
		{"peer without id", with("id = \"b\"\n", ""),
			[]string{"t.toml: peers[#1].id: missing (required)"}},
		{"unregistered kind", with("id = \"b\"\nkind = \"echo\"", "id = \"b\"\nkind = \"swim\""),
			[]string{`t.toml: peers[b].kind: unknown host kind "swim" (registered: checks, echo)`}},
		{"initial state not of the kind", with("id = \"b\"\nkind = \"echo\"", "id = \"b\"\nkind = \"echo\"\ninitial_state = \"member\""),
			[]string{`t.toml: peers[b].initial_state: "member" is not a state of kind "echo" (one of: up, down)`}},
		{"kind_config fails the kind's validation", with("id = \"b\"\nkind = \"echo\"", "id = \"b\"\nkind = \"echo\"\nkind_config = { payload_bytes = 0, colour = \"red\" }"),
			[]string{
				"t.toml: peers[b].kind_config.colour: unknown key",
				"t.toml: peers[b].kind_config.payload_bytes: must be an integer > 0, got 0",
			}},
		{"kind_config float", with("id = \"b\"\nkind = \"echo\"", "id = \"b\"\nkind = \"echo\"\nkind_config = { payload_bytes = 6.5 }"),
			[]string{
				"t.toml: peers[b].kind_config.payload_bytes: floating-point values are not allowed (6.5); use an integer in the unit the key names",
				"t.toml: peers[b].kind_config.payload_bytes: must be an integer > 0, got 6.5",
			}},
		{"zero tick override", with("id = \"b\"\nkind = \"echo\"", "id = \"b\"\nkind = \"echo\"\ntick_period_ns_override = 0"),
			[]string{"t.toml: peers[b].tick_period_ns_override: must be greater than 0, got 0"}},
		{"unknown peer key", with("id = \"b\"\nkind = \"echo\"", "id = \"b\"\nkind = \"echo\"\ntick_ms = 5"),
			[]string{"t.toml: peers[b].tick_ms: unknown key; times are integer nanoseconds and their keys end in _ns (allowed here: id, kind, kind_config, initial_state, tick_period_ns_override, recv_cost_ns, recv_buffer_bytes)"}},
		{"empty peers", with("[[peers]]\nid = \"a\"", "peers = []\n[[xpeers]]\nid = \"a\"")[:0] + "name = \"t\"\nduration_ns = 5\npeers = []\n[default_tick]\nperiod_ns = 1\n[default_link]\nbandwidth_bps = 1\n",
			[]string{"t.toml: peers: at least one [[peers]] entry is required"}},
		{"too many peers is a quick error", with("[[peers]]\nid = \"a\"", many+"[[peers]]\nid = \"a\""),
			[]string{"t.toml: peers: 10004 peers declared; at most 10000 are supported"}},
		{"links crossing into too many regions", valid + regions.String(),
			[]string{"t.toml: links: the [[links]] entries split the peer pairs into more than 1048576 regions of one policy each (2050 entries); declare fewer entries that cross (a \"*\" or \"eu-*\" entry is one region)"}},
		{"link to an undeclared peer", valid + "[[links]]\nfrom = \"a\"\nto = \"z\"\n",
			[]string{`t.toml: links[0].to: undeclared peer "z"`}},
		{"explicit self edge", valid + "[[links]]\nfrom = \"a\"\nto = \"a\"\n",
			[]string{"t.toml: links[0].to: a self-edge (a → a) is not allowed"}},
		{"link without from", valid + "[[links]]\nto = \"a\"\n",
			[]string{"t.toml: links[0].from: missing (required)"}},
		{"link zero bandwidth and unit mistake", valid + "[[links]]\nfrom = \"a\"\nto = \"b\"\nbandwidth_bps = 0\njitter_ms = 3\n",
			[]string{
				"t.toml: links[0].bandwidth_bps: must be greater than 0, got 0",
				"t.toml: links[0].jitter_ms: unknown key; times are integer nanoseconds and their keys end in _ns (allowed here: from, to, latency_ns, jitter_stddev_ns, loss_prob_ppm, reorder_prob_ppm, bandwidth_bps, cold_dial_penalty_ns, cache_warm_after_ns, cache_invalidate_after_idle_ns, send_buffer_bytes, mtu_bytes, burst_bytes)",
			}},
		{"links not an array of tables", with("seed = 1", "seed = 1\nlinks = 3"),
			[]string{"t.toml: links: must be an array of tables ([[links]]), got integer 3"}},
		{"mutation after the end of the run", valid + "[[mutations]]\nat_ns = 10_001\nkind = \"Heal\"\n",
			[]string{"t.toml: mutations[0].at_ns: 10001 is after the end of the run (duration_ns = 10000)"}},
		{"mutation without at_ns", valid + "[[mutations]]\nkind = \"Heal\"\n",
			[]string{"t.toml: mutations[0].at_ns: missing (required)"}},
		{"unknown mutation kind", valid + "[[mutations]]\nat_ns = 1\nkind = \"partition\"\n",
			[]string{`t.toml: mutations[0].kind: unknown mutation kind "partition" (one of: Partition, Heal, LatencySpike, LossBurst, RelayBuffer, PeerKill, PeerResurrect, PeerPause, Cancel)`}},
		{"parameter of another variant", valid + "[[mutations]]\nat_ns = 1\nkind = \"Heal\"\npeer = \"a\"\n",
			[]string{"t.toml: mutations[0].peer: unknown key (allowed here: at_ns, kind)"}},
		{"partition sides overlap", valid + "[[mutations]]\nat_ns = 1\nkind = \"Partition\"\npeers_a = [\"a\", \"b\"]\npeers_b = [\"b\", \"c\"]\n",
			[]string{`t.toml: mutations[0].peers_b: peer "b" is on both sides of the partition`}},
		{"partition side empty, undeclared, repeated", valid + "[[mutations]]\nat_ns = 1\nkind = \"Partition\"\npeers_a = []\npeers_b = [\"z\", \"c\", \"c\", 4]\n",
			[]string{
				"t.toml: mutations[0].peers_a: must name at least one peer",
				`t.toml: mutations[0].peers_b: element 3 must be a peer id string, got integer 4`,
				`t.toml: mutations[0].peers_b: peer "c" is listed twice`,
				`t.toml: mutations[0].peers_b: undeclared peer "z"`,
			}},
		{"latency spike on a missing edge", valid + "[[links]]\nfrom = \"a\"\nto = \"b\"\n[[mutations]]\nat_ns = 1\nkind = \"LatencySpike\"\nlinks = [{ from = \"b\", to = \"a\" }]\nfactor_x100 = 200\nduration_ns = 5\n",
			[]string{"t.toml: mutations[0].links[0]: there is no link b → a in this scenario"}},
		{"latency spike parameters out of range", valid + "[[mutations]]\nat_ns = 1\nkind = \"LatencySpike\"\nlinks = [{ from = \"b\", to = \"a\", via = \"c\" }, { from = \"b\", to = \"a\" }]\nfactor_x100 = 100001\nduration_ns = 0\n",
			[]string{
				"t.toml: mutations[0].duration_ns: must be greater than 0, got 0",
				"t.toml: mutations[0].factor_x100: must be at most 100000 (×1000), got 100001",
				"t.toml: mutations[0].links[0].via: unknown key (allowed here: from, to)",
				"t.toml: mutations[0].links[1]: link b → a is listed twice",
			}},
		{"loss burst probability and missing links", valid + "[[mutations]]\nat_ns = 1\nkind = \"LossBurst\"\nprob_ppm = 2000000\nduration_ns = 5\n",
			[]string{
				`t.toml: mutations[0].links: missing (required: an array of { from = "a", to = "b" })`,
				"t.toml: mutations[0].prob_ppm: must be at most 1000000 ppm, got 2000000",
			}},
		{"relay buffer negative floor", valid + "[[mutations]]\nat_ns = 1\nkind = \"RelayBuffer\"\nlinks = [\"a->b\"]\nfloor_ns = -1\nduration_ns = 5\n",
			[]string{
				"t.toml: mutations[0].floor_ns: must not be negative, got -1",
				`t.toml: mutations[0].links[0]: must be a table { from = "a", to = "b" }, got string "a->b"`,
			}},
		{"kill of an undeclared peer", valid + "[[mutations]]\nat_ns = 1\nkind = \"PeerKill\"\npeer = \"z\"\n",
			[]string{`t.toml: mutations[0].peer: undeclared peer "z"`}},
		{"resurrect preserve_state not a bool", valid + "[[mutations]]\nat_ns = 1\nkind = \"PeerResurrect\"\npeer = \"a\"\npreserve_state = \"yes\"\n",
			[]string{`t.toml: mutations[0].preserve_state: must be a boolean, got string "yes"`}},
		{"snapshot after the end, unknown key", valid + "[[snapshots]]\nat_ns = 20_000\nat_ms = 1\n",
			[]string{
				"t.toml: snapshots[0].at_ms: unknown key; times are integer nanoseconds: did you mean at_ns?",
				"t.toml: snapshots[0].at_ns: 20000 is after the end of the run (duration_ns = 10000)",
			}},
		{"unknown assertion kind", valid + "[[assertions]]\nkind = \"all_alive\"\n",
			[]string{`t.toml: assertions[all_alive#0].kind: unknown assertion kind "all_alive" (one of: all_alive_at, all_alive_throughout, convergence_after, no_flap_while_probes_ok, no_dead_when_probes_ok, self_incarnation_bounded, message_size_bounded, dead_peer_resurrects_within, event_count, event_rate)`}},
		{"assertion without kind", valid + "[[assertions]]\nmax = 3\n",
			[]string{"t.toml: assertions[#0].kind: missing (required)"}},
		{"assertion missing a required parameter", valid + "[[assertions]]\nkind = \"event_count\"\nmax = 3\n",
			[]string{"t.toml: assertions[event_count#0].event_type: missing (required by event_count)"}},
		{"assertion spells the clashing parameter kind", valid + "[[assertions]]\nname = \"sz\"\nkind = \"message_size_bounded\"\nmessage_kind = \"ping\"\nmax_bytes = 10\nmax = 4\n",
			[]string{"t.toml: assertions[sz].max: unknown key (allowed here: kind, name, message_kind, max_bytes)"}},
		{"assertion on an undeclared peer", valid + "[[assertions]]\nkind = \"all_alive_at\"\nat_ns = 5\npeers = [\"a\", \"q\"]\n[[assertions]]\nkind = \"self_incarnation_bounded\"\npeer = \"q\"\nmax_value = -1\n",
			[]string{
				`t.toml: assertions[all_alive_at#0].peers: undeclared peer "q"`,
				"t.toml: assertions[self_incarnation_bounded#1].max_value: must not be negative, got -1",
				`t.toml: assertions[self_incarnation_bounded#1].peer: undeclared peer "q"`,
			}},
		{"assertion window backwards and past the end", valid + "[[assertions]]\nname = \"w\"\nkind = \"all_alive_throughout\"\nwindow_start_ns = 500\nwindow_end_ns = 400\n[[assertions]]\nname = \"late\"\nkind = \"no_flap_while_probes_ok\"\npeer = \"a\"\nwindow_end_ns = 10_001\n",
			[]string{
				"t.toml: assertions[late].window_end_ns: 10001 is after the end of the run (duration_ns = 10000)",
				"t.toml: assertions[w].window_end_ns: window ends (400) before it starts (window_start_ns = 500)",
			}},
		{"event rate window zero and longer than the run", valid + "[[assertions]]\nkind = \"event_rate\"\nevent_type = \"x\"\nwindow_ns = 0\nmax_per_window = 1\n[[assertions]]\nkind = \"event_rate\"\nevent_type = \"\"\nwindow_ns = 10_001\nmax_per_window = 1\n",
			[]string{
				"t.toml: assertions[event_rate#0].window_ns: must be greater than 0, got 0",
				"t.toml: assertions[event_rate#1].event_type: must not be empty",
				"t.toml: assertions[event_rate#1].window_ns: 10001 is longer than the run (duration_ns = 10000)",
			}},
		{"duplicate assertion names", valid + "[[assertions]]\nname = \"n\"\nkind = \"event_count\"\nevent_type = \"x\"\nmax = 1\n[[assertions]]\nname = \"n\"\nkind = \"event_count\"\nevent_type = \"y\"\nmax = 1\n",
			[]string{`t.toml: assertions[#1].name: duplicate assertion name "n" (first declared as assertions[#0])`}},
		{"explicit name clashes with a default name", valid + "[[assertions]]\nkind = \"event_count\"\nevent_type = \"x\"\nmax = 1\n[[assertions]]\nname = \"event_count#0\"\nkind = \"event_count\"\nevent_type = \"y\"\nmax = 1\n",
			[]string{`t.toml: assertions[#1].name: duplicate assertion name "event_count#0" (first declared as assertions[#0])`}},
		{"unknown expectation", "# expect: passes\n" + valid,
			[]string{`t.toml: # expect: unknown expectation "passes" (want one of: pass-now, fail-until-fix, sensitivity-study)`}},
		{"expectation twice", "# expect: pass-now\n# expect: pass-now\n" + valid,
			[]string{"t.toml: # expect: declared twice in the header"}},
		{"base with an unknown key", valid + "[base]\nextend = \"x.toml\"\n[x]",
			[]string{
				"t.toml: base.extend: unknown key (allowed here: extends)",
				"t.toml: x: unknown key (allowed here: name, seed, duration_ns, early_terminate_on_all_assertions_resolved, default_tick, default_link, peers, links, mutations, snapshots, assertions)",
			}},
		{"top-level key written after a table header", valid + "[base]\nname = \"x\"\n",
			[]string{"t.toml: base.name: unknown key; name is a top-level key: put it above the first [table] header"}},
		{"base extends empty", valid + "[base]\nextends = \"\"\n",
			[]string{"t.toml: base.extends: must not be empty"}},
		{"file too large", valid + strings.Repeat("#", MaxFileBytes),
			[]string{fmt.Sprintf("t.toml: file is %d bytes; a scenario may be at most 4194304", len(valid)+MaxFileBytes)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantParseErrs(t, tt.src, tt.want...) })
	}
}

func TestParse_ValidBaseline(t *testing.T) {
	if _, err := Parse("t.toml", []byte(valid), testRegistry(), noFiles); err != nil {
		t.Fatal(err)
	}
}
