package cli

import (
	"bytes"
	"flag"
	"regexp"
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
)

// runIn is run in this process, for commands that print and return
// without starting a run.
func runIn(args ...string) result {
	var out, errb bytes.Buffer
	code := Run(args, &out, &errb, builtin.Kinds()...)
	return result{code, out.String(), errb.String()}
}

// TestHelp_EveryFormPrintsUsageAndFlagsToStdout: -h, --help, help and
// help COMMAND all exit 0 with the command's usage and every one of its
// flags on stdout, nothing on stderr.
func TestHelp_EveryFormPrintsUsageAndFlagsToStdout(t *testing.T) {
	cases := []struct {
		args  []string
		usage string
		flags []string
	}{
		{[]string{"-h"}, "usage:\n  detsim [--seed N] [SCENARIO]", []string{"--batch", "--seed string", "--out string", "--break-on", "--until", "--width int", "--max-records", "--max-bytes"}},
		{[]string{"--help"}, "usage:\n  detsim [--seed N]", []string{"--batch"}},
		{[]string{"help"}, "usage:\n  detsim [--seed N]", []string{"--batch", "(default 160)"}},
		{[]string{"--batch", "-h"}, "usage:\n  detsim [--seed N]", []string{"--batch"}},
		{[]string{"help", "sweep"}, "usage: detsim sweep PROPERTY", []string{"--seeds N", "--start S", "(default 0)", "--workers W", "--shard i/n", "--shard-from-env VAR", "--shards n", "--corpus DIR", "--json", "-v ", "--force"}},
		{[]string{"sweep", "-h"}, "usage: detsim sweep PROPERTY", []string{"--seeds N"}},
		{[]string{"sweep", "gossip_flap", "--seeds", "3", "--help"}, "usage: detsim sweep PROPERTY", []string{"--seeds N"}},
		{[]string{"help", "shrink"}, "usage: detsim shrink SCENARIO", []string{"--assert NAME", "--out FILE", "--budget N", "(default 2000)", "--force"}},
		{[]string{"shrink", "-h"}, "usage: detsim shrink SCENARIO", []string{"--budget N"}},
		{[]string{"help", "check"}, "usage: detsim check", []string{"--workers W"}},
		{[]string{"check", "-help"}, "usage: detsim check", []string{"--workers W"}},
		{[]string{"help", "verify"}, "usage: detsim verify BUNDLE", nil},
		{[]string{"verify", "-h"}, "usage: detsim verify BUNDLE", nil},
		{[]string{"help", "list"}, "usage: detsim list", nil},
		{[]string{"list", "-h"}, "usage: detsim list", nil},
		{[]string{"help", "help"}, "usage: detsim help [COMMAND]", nil},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runIn(c.args...)
			if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, c.usage) {
				t.Fatalf("exit %d, want 0 with stdout starting %q\nstdout: %s\nstderr: %s", r.code, c.usage, r.stdout, r.stderr)
			}
			for _, f := range c.flags {
				if !strings.Contains(r.stdout, f) {
					t.Errorf("help lacks %q:\n%s", f, r.stdout)
				}
			}
		})
	}
}

// TestHelp_ListsEveryFlagTheCommandDefines: the flags section is made
// from the FlagSet, so every flag a command parses is in its help.
func TestHelp_ListsEveryFlagTheCommandDefines(t *testing.T) {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.String("alpha", "x", "the `A` flag")
	fs.Int("beta", 0, "runs (default: every core)")
	fs.Bool("v", false, "verbose")
	var out bytes.Buffer
	printFlags(&out, "flags:", fs)
	want := "\nflags:\n" +
		"  --alpha A   the A flag (default x)\n" +
		"  --beta int  runs (default: every core)\n" +
		"  -v          verbose\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	if strings.Contains(out.String(), "(default 0)") || strings.Contains(out.String(), "(default false)") {
		t.Errorf("a default repeated or a false one shown:\n%s", out.String())
	}
}

// TestUsageErrors_OneLineAndWhereToLook: a bad flag or argument is exit
// 2, one line of reason, then the help command to run.
func TestUsageErrors_OneLineAndWhereToLook(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
		hint string
	}{
		{[]string{"--frobnicate", "x"}, "detsim: flag provided but not defined: -frobnicate", "run 'detsim help' for usage"},
		{[]string{"sweep", "--frobnicate"}, "detsim: sweep: flag provided but not defined: -frobnicate", "run 'detsim help sweep' for usage"},
		{[]string{"sweep", "--seeds", "3"}, "detsim: sweep: want one PROPERTY", "run 'detsim help sweep' for usage"},
		{[]string{"shrink", "--frobnicate"}, "detsim: shrink: flag provided but not defined", "run 'detsim help shrink' for usage"},
		{[]string{"shrink"}, "detsim: shrink: want one SCENARIO", "run 'detsim help shrink' for usage"},
		{[]string{"check", "a", "b"}, "detsim: check: at most one DIR", "run 'detsim help check' for usage"},
		{[]string{"check", "--workers", "-1"}, "detsim: check: --workers -1", "run 'detsim help check' for usage"},
		{[]string{"verify"}, "detsim: verify: needs exactly one BUNDLE", "run 'detsim help verify' for usage"},
		{[]string{"verify", "--x"}, "detsim: verify: flag provided but not defined: -x", "run 'detsim help verify' for usage"},
		{[]string{"list", "extra"}, "detsim: list: takes no arguments", "run 'detsim help list' for usage"},
		{[]string{"help", "a", "b"}, "detsim: help: one COMMAND at a time", "run 'detsim help help' for usage"},
		{[]string{"help", "nothing"}, `detsim: help: no command "nothing" (commands: verify, list`, "run 'detsim help help' for usage"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runIn(c.args...)
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if r.code != exitUsage || r.stdout != "" || len(lines) != 2 || !strings.HasPrefix(lines[0], c.msg) || lines[1] != c.hint {
				t.Fatalf("exit %d, want 2 with %q then %q\nstdout: %s\nstderr: %s", r.code, c.msg, c.hint, r.stdout, r.stderr)
			}
		})
	}
}

// TestHelp_OverviewNamesEveryCommand: detsim help lists each command
// of the table, and help's own usage names each (issue 33: testbed was
// in neither).
func TestHelp_OverviewNamesEveryCommand(t *testing.T) {
	r := runIn("help")
	h := runIn("help", "help")
	for _, c := range commands {
		if !strings.Contains(r.stdout, "\n  detsim "+c.name+" ") {
			t.Errorf("detsim help does not list %q", c.name)
		}
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(c.name) + `\b`).MatchString(h.stdout) {
			t.Errorf("detsim help help does not name %q", c.name)
		}
	}
}

// TestDidYouMean: a first argument that is not a file or an embedded
// scenario but is near a command names the command; a near-miss
// scenario or property name names the nearest one.
func TestDidYouMean(t *testing.T) {
	cases := []struct {
		args []string
		msg  string
	}{
		{[]string{"swep", "gossip_flap", "--seeds", "3"}, `unknown command "swep": did you mean "detsim sweep"?`},
		{[]string{"sweeep"}, `did you mean "detsim sweep"?`},
		{[]string{"sewep"}, `did you mean "detsim sweep"?`},
		{[]string{"verfiy", "b"}, `did you mean "detsim verify"?`},
		{[]string{"lst"}, `did you mean "detsim list"?`},
		{[]string{"shrnk", "x"}, `did you mean "detsim shrink"?`},
		{[]string{"chek"}, `did you mean "detsim check"?`},
		{[]string{"hlep"}, `did you mean "detsim help"?`},
		{[]string{"help", "swep"}, `did you mean "detsim help sweep"?`},
		{[]string{"--batch", "reproduction/gosip_flap"}, `reproduction/gosip_flap: no such file, and no embedded scenario of that name: did you mean "reproduction/gossip_flap"?`},
		{[]string{"--batch", "reproduction/gosip_flap.toml"}, `did you mean "reproduction/gossip_flap"?`},
		{[]string{"--batch", "gossip_flap_fixd"}, `did you mean "reproduction/gossip_flap_fixed"?`},
		{[]string{"--batch", "smoke/thre_mesh"}, `did you mean "smoke/three_mesh"?`},
		{[]string{"shrink", "smoke/ring"}, `did you mean "smoke/ring8"?`},
		{[]string{"sweep", "gossip_flp", "--seeds", "2"}, `gossip_flp: no such file, and no embedded property of that name: did you mean "gossip_flap"?`},
		{[]string{"sweep", "gossip_flap_legac", "--seeds", "2"}, `did you mean "gossip_flap_legacy"?`},
		// Issue 33: as near to calibration/ and testbed/ as to
		// reproduction/, the run means the reproduction.
		{[]string{"--batch", "gossip_flap"}, `gossip_flap: no such file, and no embedded scenario of that name: did you mean "reproduction/gossip_flap"? (also "calibration/gossip_flap", "testbed/gossip_flap")`},
		// Issue 33: a mistyped flag names the flag it was near.
		{[]string{"--seeed", "3", "smoke/three_mesh"}, "detsim: flag provided but not defined: -seeed: did you mean --seed?"},
		{[]string{"sweep", "gossip_flap", "--sedds", "3"}, "detsim: sweep: flag provided but not defined: -sedds: did you mean --seeds?"},
		{[]string{"list", "--x"}, "detsim: list: flag provided but not defined: -x\n"},
		// Far from everything: the loader's own message, with the list.
		{[]string{"--batch", "zzzzzzzz"}, "zzzzzzzz: no such file, and no embedded scenario of that name (embedded: "},
		{[]string{"sweep", "zzzzzzzz", "--seeds", "2"}, "zzzzzzzz: no embedded property of that name (embedded: agent_faults, agent_faults_bug, gossip_flap, gossip_flap_legacy, gossip_flap_wan, gossip_flap_wan_legacy, raft_partitions, raft_partitions_bug, raft_read_pauses, raft_read_pauses_reuse)"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := runIn(c.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, c.msg) {
				t.Fatalf("exit %d, want 2 with %q\nstdout: %s\nstderr: %s", r.code, c.msg, r.stdout, r.stderr)
			}
		})
	}
}

func TestSuggestCommand(t *testing.T) {
	for arg, want := range map[string]string{
		"swep": "sweep", "sweep": "sweep", "swee": "sweep", "sewep": "sweep", "seep": "sweep",
		"verfy": "verify", "vrify": "verify", "lis": "list", "ls": "list",
		"shrik": "shrink", "schrink": "shrink", "chekc": "check", "hepl": "help",
		"swxyzp":                   "", // three edits
		"--batch":                  "", // a flag
		"smoke/three_mesh":         "", // an embedded scenario
		"reproduction/gossip_flap": "",
		"main.go":                  "", // a file (this package's)
		"xyzzy":                    "",
	} {
		if got := suggestCommand(arg, builtin.Registry()); got != want {
			t.Errorf("suggestCommand(%q) = %q, want %q", arg, got, want)
		}
	}
}

// TestList_ShowsExpectationAndDescription: one line per embedded
// scenario, in aligned columns: name, # expect:, first line of prose.
func TestList_ShowsExpectationAndDescription(t *testing.T) {
	r := runIn("list")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) < 10 {
		t.Fatalf("%d lines:\n%s", len(lines), r.stdout)
	}
	col := map[string]int{}
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("line without name, expectation and description: %q", line)
		}
		switch f[1] {
		case "pass-now", "fail-until-fix", "sensitivity-study":
		default:
			t.Errorf("%s: expectation %q", f[0], f[1])
		}
		col["expect"] = max(col["expect"], strings.Index(line, " "+f[1]+" ")+1)
		if i := strings.Index(line, " "+f[1]+" ") + 1; col["at"] == 0 {
			col["at"] = i
		} else if i != col["at"] {
			t.Errorf("expectation column at %d, not %d: %q", i, col["at"], line)
		}
	}
	for _, want := range []string{
		"reproduction/gossip_flap ", "fail-until-fix", `Reproduces the N3 "gossip flap" (bug B1, spec §0): three peers in three`,
		"reproduction/gossip_flap_fixed", "The gossip-flap fix:",
		"smoke/three_mesh", "Smoke: three SWIM members on a clean full mesh",
		// The whole first sentence, across the scenario's comment lines.
		"agent/cancel_mid_stream", "Harness fault: a Cancel mutation between two chunks of a stream: the call is aborted and settles as cancelled at once.",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("list lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, line := range lines {
		if strings.HasPrefix(line, "smoke/three_mesh ") && !strings.Contains(line, " pass-now ") {
			t.Errorf("smoke/three_mesh: %q", line)
		}
	}
}

// TestFirstSentence: list gives a description's first sentence across
// its comment lines, not its first line (issue 33: "Harness fault: a
// Cancel mutation between two chunks of a"), and a long one ends at a
// word with "…".
func TestFirstSentence(t *testing.T) {
	long := "# " + strings.Repeat("word ", 40) + "end.\n"
	for src, want := range map[string]string{
		"# expect: pass-now\n#\n# Hello there.\n# More.\nname = 'x'\n": "Hello there.",
		"\n\n#   First.  \n# expect: pass-now\n":                       "First.",
		"# expect: pass-now\n\nname = 'x'\n# Late.\n":                  "",
		"name = 'x'\n": "",
		"# Harness fault: a Cancel between two\n# chunks of a stream. Then more.\n": "Harness fault: a Cancel between two chunks of a stream.",
		"# Two lines, e.g. this one,\n# and no full stop\n#\n# Next paragraph.\n":   "Two lines, e.g. this one, and no full stop",
		"# Costs 1.5 s per fsync.\n": "Costs 1.5 s per fsync.",
		long:                         strings.TrimSpace(strings.Repeat("word ", 31)) + " …",
	} {
		if got := firstSentence([]byte(src)); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", src, got, want)
		}
	}
}
