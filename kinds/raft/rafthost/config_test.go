package rafthost

import (
	"strings"
	"testing"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/scenarios"
)

var declared = []string{"n1", "n2", "n3"}

// TestValidate_NamesTheField: every problem with a raft kind_config is an
// error naming its field, which the loader reports as
// peers[<id>].kind_config.<field> (exit 2).
func TestValidate_NamesTheField(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config map[string]any
		field  string
		msg    string
	}{
		{"an unknown key", map[string]any{"election_tick": int64(10)}, "kind_config.election_tick", "unknown key"},
		{"election ticks equal to heartbeat ticks", map[string]any{"election_ticks": int64(3), "heartbeat_ticks": int64(3)}, "kind_config.election_ticks", "greater than heartbeat_ticks (3)"},
		{"election ticks below heartbeat ticks", map[string]any{"heartbeat_ticks": int64(20)}, "kind_config.election_ticks", "greater than heartbeat_ticks (20), got 10"},
		{"zero heartbeat ticks", map[string]any{"heartbeat_ticks": int64(0)}, "kind_config.heartbeat_ticks", "must be in"},
		{"pre_vote not a boolean", map[string]any{"pre_vote": "yes"}, "kind_config.pre_vote", "must be a boolean"},
		{"a proposal to an undeclared peer", map[string]any{"proposals": []any{map[string]any{"at_ns": int64(1), "key": "k", "value": "v"}, map[string]any{"at_ns": int64(2), "key": "k", "value": "v", "to": "n9"}}}, "kind_config.proposals[1].to", `"n9" is not a declared peer`},
		{"a load to an undeclared peer", map[string]any{"load": map[string]any{"every_ns": int64(1_000_000), "to": "n4"}}, "kind_config.load.to", `"n4" is not a declared peer`},
		{"a proposal without a time", map[string]any{"proposals": []any{map[string]any{"key": "k"}}}, "kind_config.proposals[0].at_ns", "required"},
		{"a proposal with an empty key", map[string]any{"proposals": []any{map[string]any{"at_ns": int64(1)}}}, "kind_config.proposals[0].key", "non-empty"},
		{"a key with a NUL", map[string]any{"proposals": []any{map[string]any{"at_ns": int64(1), "key": "a\x00b"}}}, "kind_config.proposals[0].key", "NUL"},
		{"proposals out of order", map[string]any{"proposals": []any{map[string]any{"at_ns": int64(5), "key": "k"}, map[string]any{"at_ns": int64(2), "key": "k"}}}, "kind_config.proposals", "at_ns order"},
		{"a load without a rate", map[string]any{"load": map[string]any{"from_ns": int64(0)}}, "kind_config.load.every_ns", "required"},
		{"a load faster than a put a microsecond", map[string]any{"load": map[string]any{"every_ns": int64(10)}}, "kind_config.load.every_ns", "must be in"},
		{"a load that ends before it starts", map[string]any{"load": map[string]any{"every_ns": int64(1_000_000), "from_ns": int64(5), "until_ns": int64(5)}}, "kind_config.load.until_ns", "after from_ns"},
		{"a slow disk window without a latency", map[string]any{"slow_disk": []any{map[string]any{"from_ns": int64(1), "until_ns": int64(2)}}}, "kind_config.slow_disk[0].fsync_ns", "required"},
		{"an unknown planted bug", map[string]any{"bug": "lose_votes"}, "kind_config.bug", "unknown value"},
		{"an unknown transport", map[string]any{"transport": "tcp"}, "kind_config.transport", "unknown value"},
		{"a read retry policy the kind does not know", map[string]any{"clients": map[string]any{"every_ns": int64(1_000_000), "retry": "backoff"}}, "kind_config.clients.retry", `unknown value "backoff" (one of: fresh, reuse)`},
		{"clients without a pace", map[string]any{"clients": map[string]any{"keys": int64(2)}}, "kind_config.clients.every_ns", "required"},
		{"an unknown client key", map[string]any{"clients": map[string]any{"every_ns": int64(1_000_000), "reads": int64(50)}}, "kind_config.clients.reads", "unknown key"},
		{"reads over a percent", map[string]any{"clients": map[string]any{"every_ns": int64(1_000_000), "reads_percent": int64(101)}}, "kind_config.clients.reads_percent", "must be in"},
		// raft serves no ReadIndex for lease-based reads without
		// CheckQuorum (its Config.validate refuses the node).
		{"lease-based reads without CheckQuorum", map[string]any{"read_only": "lease_based", "check_quorum": false, "clients": map[string]any{"every_ns": int64(1_000_000)}}, "kind_config.read_only", "needs check_quorum"},
		{"an unknown read-only option", map[string]any{"read_only": "serializable"}, "kind_config.read_only", "unknown value"},
		{"a timeline put to a clients' key", map[string]any{"proposals": []any{map[string]any{"at_ns": int64(1), "key": "c1", "value": "v"}}}, "kind_config.proposals[0].key", "clients' key"},
		{"a log that could outgrow memory", map[string]any{"snapshot_entries": int64(1 << 20), "load": map[string]any{"every_ns": int64(1_000_000), "value_bytes": int64(1 << 16)}}, "kind_config.snapshot_entries", "over the 1073741824 (1 GiB) a member may keep"},
		{"a log of large proposals that could outgrow memory", map[string]any{"snapshot_entries": int64(20_000), "proposals": []any{map[string]any{"at_ns": int64(1), "key": "k", "value": strings.Repeat("v", 1<<16)}}}, "kind_config.snapshot_entries", "1 GiB"},
	} {
		errs := validate(tc.config, declared)
		found := false
		for _, e := range errs {
			if e.Field == tc.field && strings.Contains(e.Msg, tc.msg) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: errors %v, want %s: …%s…", tc.name, errs, tc.field, tc.msg)
		}
	}
}

// TestValidate_DefaultsAreEtcdServers: an empty kind_config is etcd
// server's configuration (v3.6): 10 election ticks over 1 heartbeat tick,
// PreVote and CheckQuorum on, 1 MiB messages, 512 in flight.
func TestValidate_DefaultsAreEtcdServers(t *testing.T) {
	c, errs := parse(map[string]any{}, declared)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if c.electionTicks != 10 || c.heartbeatTicks != 1 || !c.preVote || !c.checkQuorum || c.maxSizePerMsg != 1<<20 || c.maxInflightMsgs != 512 {
		t.Errorf("defaults %+v", *c)
	}
}

// TestLoad_BadRaftConfigIsAnInputError: the loader reports a raft
// kind_config's problems as input errors naming the peer and the field
// (the CLI's exit 2), every one of them, not a panic later in the run.
func TestLoad_BadRaftConfigIsAnInputError(t *testing.T) {
	_, err := scenarios.Load("testdata/bad_config.toml", hosts.NewRegistry(Kind))
	if err == nil {
		t.Fatal("loaded")
	}
	for _, want := range []string{
		"peers[n1].kind_config.election_ticks: must be greater than heartbeat_ticks (1), got 1",
		"peers[n1].kind_config.max_inflight: unknown key",
		`peers[n2].kind_config.proposals[0].to: "n7" is not a declared peer`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
}

// TestValidate_LogBoundAcceptsEtcdsDefaults: the bound on what a member's
// log can hold between snapshots refuses only what could pass 1 GiB:
// etcd's defaults (10 000 + 5 000 entries) with the largest value the
// config allows fit, as does the largest snapshot_entries with small
// puts.
func TestValidate_LogBoundAcceptsEtcdsDefaults(t *testing.T) {
	for _, m := range []map[string]any{
		{"load": map[string]any{"every_ns": int64(1_000_000), "value_bytes": int64(1 << 16)}},
		{"snapshot_entries": int64(1 << 23), "catch_up_entries": int64(1 << 23)},
	} {
		if errs := validate(m, declared); len(errs) > 0 {
			t.Errorf("%v: %v", m, errs)
		}
	}
}

// TestLoad_MembersMemoryIsBoundedBySum: what each member's config bounds
// at 1 GiB, five members hold five times over; the loader refuses the
// scenario naming the field and the sum (exit 2), before any run. Before,
// five members each just under the bound loaded, and reached 1.4 GB
// before one virtual second (issue 28).
func TestLoad_MembersMemoryIsBoundedBySum(t *testing.T) {
	_, err := scenarios.Load("testdata/memory_sum.toml", hosts.NewRegistry(Kind))
	if err == nil {
		t.Fatal("five members of 1 GiB each loaded")
	}
	for _, want := range []string{"peers.kind_config.snapshot_entries: summed over the 5 raft members", "total 5583544320 bytes", "over the 4294967296 (4 GiB)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "peers[") {
		t.Errorf("each member alone is within its own bound; only the sum is refused: %v", err)
	}
}

// TestValidateMembers_EveryLogHoldsEveryClientsPuts: a member's own
// config sizes its log by its own client's puts, but raft replicates
// every client's puts into every log; the sum counts the largest put of
// any member, so small-put members with long logs beside one large-put
// member are refused, as is a cluster of uncommitted tails. Three members
// with etcd's defaults and small puts are far within it.
func TestValidateMembers_EveryLogHoldsEveryClientsPuts(t *testing.T) {
	big := map[string]any{"load": map[string]any{"every_ns": int64(1_000_000), "value_bytes": int64(1 << 16)}}
	long := map[string]any{"snapshot_entries": int64(1 << 23), "catch_up_entries": int64(1 << 23)}
	tails := map[string]any{"max_uncommitted_entries_bytes": int64(1 << 30)}
	for _, tc := range []struct {
		name    string
		configs []map[string]any
		refused bool
	}{
		{"one large-put member beside long logs", []map[string]any{big, long, long}, true},
		{"three 1 GiB uncommitted tails and a 64 KiB put", []map[string]any{tails, big, nil}, true},
		{"etcd's defaults", []map[string]any{nil, nil, nil}, false},
		{"one large-put member with default logs", []map[string]any{big, nil, nil}, false},
		{"three 1 GiB uncommitted tails", []map[string]any{tails, nil, nil}, false},
	} {
		var members []hosts.PeerConfig
		for i, c := range tc.configs {
			if errs := validate(c, declared); len(errs) > 0 {
				t.Fatalf("%s: member %d alone: %v", tc.name, i, errs)
			}
			members = append(members, hosts.PeerConfig{ID: declared[i], Config: c})
		}
		errs := validateMembers(members, declared)
		if got := len(errs) > 0; got != tc.refused {
			t.Errorf("%s: errors %v, want refused %v", tc.name, errs, tc.refused)
		}
	}
}
