// Package bench compares detsim with github.com/hashicorp/memberlist on
// equal SWIM work: the same cluster size, zero-latency links and the same
// span of virtual time, detsim on its discrete-event engine with the full
// bundle written, memberlist on an in-memory transport inside a
// testing/synctest bubble. It is a separate module so that memberlist and
// its dependencies never enter detsim's own go.mod. The package itself
// is tests and benchmarks (README.md says how to run them); beside it,
// mlevents maps what a memberlist node does onto detsim's records, for
// the synctest witness and for cmd/memberlistd, memberlist as a daemon
// for the kernel testbed.
package bench
