package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/detsim/detsim/debugger"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/vtime"
)

const whyUsage = `usage: detsim why BUNDLE --host H --subject S --at T
       detsim why BUNDLE --line L

Explains how host H came to hold member S as it did at virtual time T
(its latest state transition about S at or before T; T as the stepper's
g takes a time: 93.053269733s, 93053269733ns, 250ms, time=…; or a
record, L8427), or the state transition on line L: the whole chain back
to its origin across hosts — the probe that timed out and why (its ping
or ack dropped, late by how much, behind which messages on the link),
each message that carried the news (id, sender, size) and each
refutation and why it did not win. Every link is a record,
events.ndjson#L<line>: open the bundle in the stepper (detsim BUNDLE)
and g L<line> to stand on it. Works on simulated, live and testbed
bundles (the records and their message ids are all it reads).
Exit: 0 explained, 2 invalid input (an unknown host, no transition there,
a record that is not a state transition).
`

func cmdWhy(reg *hosts.Registry, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("why", flag.ContinueOnError)
	host := fs.String("host", "", "the observer: whose view")
	subject := fs.String("subject", "", "the member the view is of")
	at := fs.String("at", "", "the virtual time (93.053269733s, 93053269733ns) or a record (L8427)")
	line := fs.Int64("line", 0, "the state_transition record to explain, by its line in events.ndjson")
	// The flags, then this command's own checks of its arguments, alike
	// in shape across the subcommands: the shared steps are
	// prologue.go's, the checks and their messages are each command's.
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, err, stdout, stderr)
	}
	if len(pos) != 1 {
		return usageErrIn(stderr, "why", "needs one bundle, got %d", len(pos))
	}
	q := debugger.WhyQuery{Host: *host, Subject: *subject, Line: *line}
	atTime := *at
	if r, ok := strings.CutPrefix(strings.TrimPrefix(strings.TrimPrefix(*at, "events.ndjson"), "#"), "L"); ok && *at != "" {
		n, err := debugger.ParseCount(r)
		if err != nil || n < 1 {
			return usageErrIn(stderr, "why", "--at %q: a record is L followed by its line number: L8427", *at)
		}
		q.Line, atTime = n, ""
	}
	switch {
	case q.Line > 0 && (*host != "" || *subject != "" || atTime != "" || *line > 0 && *at != ""):
		return usageErrIn(stderr, "why", "a record (--line L, or --at L…) names its transition alone: leave --host, --subject and a time out")
	case q.Line > 0:
	case *host == "" || *subject == "" || atTime == "":
		return usageErrIn(stderr, "why", "want --host H --subject S --at T, or --line L")
	default:
		t := strings.TrimPrefix(atTime, "time=")
		if _, err := strconv.ParseInt(t, 10, 64); err == nil {
			return usageErrIn(stderr, "why", "--at %q: a bare number is a step to g, and a bundle has no steps: give a time with its unit (93.053269733s, 93053269733ns) or a record (L8427)", *at)
		}
		if q.At, err = debugger.ParseTime(t, ""); err != nil {
			return usageErrIn(stderr, "why", "--at %q: %v", *at, err)
		}
	}
	c, target, err := debugger.WhyInBundle(pos[0], reg, q)
	if err != nil {
		var we *debugger.WhyError
		if errors.As(err, &we) {
			return usageErrIn(stderr, "why", "%v", err)
		}
		fmt.Fprintf(stderr, "detsim: why: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "why       events.ndjson#L%d\n", target)
	state := "complete: it ends at its origin"
	if !c.Complete {
		state = "stops short: " + c.Note
	}
	fmt.Fprintf(stdout, "chain     %d records, %s\n", len(c.Links), state)
	for _, l := range c.Links {
		indent := "  "
		if l.Depth > 0 {
			indent = "      "
		}
		origin := ""
		if l.Origin {
			origin = "  [origin]"
		}
		host := l.Host
		if host == "" {
			host = "-"
		}
		fmt.Fprintf(stdout, "%sL%-8d %s  %-6s %s%s\n", indent, l.Line, vtime.Fixed(l.At), host, l.Text, origin)
		if l.Why != "" {
			fmt.Fprintf(stdout, "%s            %s\n", indent, l.Why)
		}
	}
	fmt.Fprintf(stdout, "stepper   detsim %s, then g L<line> to stand on a record (W there explains it again)\n", pos[0])
	return exitOK
}
