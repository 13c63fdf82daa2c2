package swimhost

import "github.com/detsim/detsim/hosts"

// watches are the values of a swim host a viewer may watch: its view of
// a member (state, incarnation) and its own incarnation.
var watches = []hosts.Watch{
	{Field: "state", Type: tTransition, Host: "observer", Member: "subject", Value: "to",
		Doc: "the host's view of the member: alive, suspect or dead"},
	{Field: "incarnation", Type: tTransition, Host: "observer", Member: "subject", Value: "incarnation",
		Doc: "the incarnation the host holds for the member"},
	{Field: "incarnation", Type: tBump, Value: "new",
		Doc: "the host's own incarnation (no member=)"},
}

// series are what the page charts of a swim run: what grows in the
// gossip flap (message sizes and the updates piled onto each, against
// the size assertion's threshold), what it causes (suspicions,
// refutations, incarnations) and what the links carry against their
// bandwidth.
var series = []hosts.Series{
	{ID: "swim_bytes", Title: "message size", Unit: "B", Types: []string{tSent}, Field: "bytes", Agg: hosts.AggMaxMedian,
		Limit: &hosts.Limit{Assertion: "message_size_bounded", Param: "max_bytes"},
		Doc:   "largest and median message a host sent in each interval; the dashed line is message_size_bounded's max_bytes"},
	{ID: "swim_updates", Title: "piggybacked updates", Types: []string{tSent}, Field: "updates", Agg: hosts.AggMaxMedian,
		Doc: "most and median membership updates piggybacked on one message"},
	{ID: "swim_suspicions", Title: "suspicions", Types: []string{tTransition}, Where: [2]string{"to", "suspect"}, Host: "observer", Agg: hosts.AggCount,
		Doc: "views turned suspect in each interval (by the observer)"},
	{ID: "swim_refutations", Title: "refutations", Types: []string{tBump}, Agg: hosts.AggCount,
		Doc: "times a host raised its own incarnation to refute an accusation"},
	{ID: "swim_incarnation", Title: "incarnation", Types: []string{tBump}, Field: "new", Agg: hosts.AggLast,
		Doc: "the host's own incarnation"},
	{ID: "swim_queue", Title: "broadcast queue", Snapshot: "broadcast_queue.depth", Agg: hosts.AggLast,
		Doc: "updates waiting in the host's broadcast queue, from the bundle's snapshots (no record carries it): as dense as the scenario's [[snapshots]]"},
	{ID: "swim_link_bytes", Title: "link bytes per second", Unit: "B/s", Types: []string{tSent}, Field: "bytes", Peer: "peer", Agg: hosts.AggRate, Bandwidth: true,
		Doc: "bytes sent on each directed link per second of virtual time; the dashed line is the link's bandwidth"},
}
