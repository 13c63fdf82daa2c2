// Package debugger is detsim's headless debugger: one run under control,
// in the gdb/rr spirit, with no screen. A Session holds the engine's
// timeline (reverse execution by checkpoint and re-execution), the
// streaming verdict evaluator attached to it, and a cache of the
// serialised event records a viewer shows. On it: breakpoints (ParseBreakpoint:
// fail, type=T, host=H, time=T, step=N), continue and reverse-continue to
// them, go to a step or a virtual time, and ParseTime, the exact reader
// of virtual times that --until and the stepper's go-to share.
//
// The terminal stepper (package tui) and `detsim --batch --break-on` both
// drive a Session, so a breakpoint means the same thing in both. Long
// moves take a pause callback checked between chunks, so a viewer can keep
// its screen responsive; the package itself reads no clock, starts no
// goroutine and imports nothing of the terminal (a test proves it).
package debugger
