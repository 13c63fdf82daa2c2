package swim

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestDefaultConfig_MemberlistLAN(t *testing.T) {
	c := DefaultConfig()
	want := Config{ProbeIntervalNs: 1e9, ProbeTimeoutNs: 5e8, IndirectChecks: 3, RetransmitMult: 4,
		SuspicionMult: 4, SuspicionMaxTimeoutMult: 6, AwarenessMaxMultiplier: 8, MaxMessageBytes: 1400,
		PushPullIntervalNs: 30e9, MaxMembers: DefaultMaxMembers}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("%+v", c)
	}
	if errs := c.Validate([]string{"a", "b", "c"}); len(errs) != 0 {
		t.Fatalf("defaults invalid: %v", errs)
	}
}

func TestParseConfig_AllKeys(t *testing.T) {
	c, errs := ParseConfig(map[string]any{
		"probe_interval_ns":          int64(2e9),
		"probe_timeout_ns":           int64(3e8),
		"indirect_checks":            int64(2),
		"retransmit_mult":            int64(3),
		"suspicion_mult":             int64(5),
		"suspicion_max_timeout_mult": int64(4),
		"awareness_max_multiplier":   int64(6),
		"max_message_bytes":          int64(512),
		"gossip":                     "legacy",
		"seeds":                      []any{"a", "b"},
		"meta_bytes":                 int64(300),
		"push_pull_interval_ns":      int64(45e9),
		"max_members":                int64(100),
	})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	want := Config{ProbeIntervalNs: 2e9, ProbeTimeoutNs: 3e8, IndirectChecks: 2, RetransmitMult: 3,
		SuspicionMult: 5, SuspicionMaxTimeoutMult: 4, AwarenessMaxMultiplier: 6, MaxMessageBytes: 512,
		Gossip: Legacy, Seeds: []string{"a", "b"}, MetaBytes: 300, PushPullIntervalNs: 45e9, MaxMembers: 100}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("%+v", c)
	}
	if c, errs := ParseConfig(nil); len(errs) != 0 || !reflect.DeepEqual(c, DefaultConfig()) {
		t.Fatalf("empty kind_config: %+v %v", c, errs)
	}
}

func TestParseConfig_ReportsEveryError(t *testing.T) {
	_, errs := ParseConfig(map[string]any{
		"probe_interval_ns": "1s",
		"probe_timeout_ns":  int64(-5),
		"indirect_checks":   1.5,
		"max_message_bytes": int64(70000),
		"gossip":            "fast",
		"seeds":             []any{"a", int64(3)},
		"probe_interval_ms": int64(1000),
		"suspicion_mult":    true,
		"retransmit_mult":   int64(0),
	})
	want := []string{
		`kind_config.gossip: must be "bounded" or "legacy", got "fast"`,
		"kind_config.indirect_checks: must be an integer, got float64",
		"kind_config.max_message_bytes: must be in [64, 65507], got 70000",
		"kind_config.probe_interval_ms: unknown key",
		"kind_config.probe_interval_ns: must be an integer, got a string",
		"kind_config.probe_timeout_ns: must be in [1, 3600000000000], got -5",
		"kind_config.retransmit_mult: must be in [1, 1000], got 0",
		"kind_config.seeds: element 1 must be a string, got an integer",
		"kind_config.suspicion_mult: must be an integer, got a boolean",
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseConfig_MetaBytes(t *testing.T) {
	cases := []struct {
		value any
		want  int
		err   string
	}{
		{int64(0), 0, ""},
		{int64(200), 200, ""},
		{int64(512), 512, ""},
		{int64(-1), 0, "kind_config.meta_bytes: must be in [0, 512], got -1"},
		{int64(513), 0, "kind_config.meta_bytes: must be in [0, 512], got 513"},
		{"200", 0, "kind_config.meta_bytes: must be an integer, got a string"},
		{true, 0, "kind_config.meta_bytes: must be an integer, got a boolean"},
		{[]any{int64(1)}, 0, "kind_config.meta_bytes: must be an integer, got an array"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.value), func(t *testing.T) {
			cfg, errs := ParseConfig(map[string]any{"meta_bytes": c.value})
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if c.err == "" && len(got) != 0 || c.err != "" && !slices.Equal(got, []string{c.err}) {
				t.Fatalf("errors %q, want %q", got, c.err)
			}
			if cfg.MetaBytes != c.want {
				t.Fatalf("MetaBytes %d, want %d", cfg.MetaBytes, c.want)
			}
		})
	}
}

// memberlist's MetaMaxSize (512) must fit its default 1400-byte budget
// even between the longest ids the wire carries.
func TestValidate_DefaultBudgetFitsLargestMeta(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MetaBytes = MaxMetaBytes
	peers := []string{"a", strings.Repeat("p", MaxIDBytes)}
	if errs := cfg.Validate(peers); len(errs) != 0 {
		t.Fatal(errs)
	}
}

func TestValidate_CrossChecks(t *testing.T) {
	peers := []string{"a", "b", "c"}
	cases := []struct {
		name   string
		mutate func(*Config)
		peers  []string
		want   string
	}{
		{"timeout not below interval", func(c *Config) { c.ProbeTimeoutNs = c.ProbeIntervalNs }, peers,
			"kind_config.probe_timeout_ns: must be less than probe_interval_ns (1000000000), got 1000000000"},
		{"suspicion not above probe interval (spec 8.2)", func(c *Config) { c.SuspicionMult = 1 }, peers,
			"kind_config.suspicion_mult: suspicion timeout for 3 peers is 1000000000 ns, which must exceed probe_interval_ns (1000000000); raise suspicion_mult"},
		{"undeclared seed", func(c *Config) { c.Seeds = []string{"a", "zz"} }, peers,
			`kind_config.seeds: seed "zz" is not a declared peer`},
		{"duplicate seed", func(c *Config) { c.Seeds = []string{"a", "a"} }, peers,
			`kind_config.seeds: seed "a" is listed twice`},
		{"budget below bare message", func(c *Config) { c.MaxMessageBytes = 100 }, []string{strings.Repeat("p", 60), "q"},
			"kind_config.max_message_bytes: must be at least 135"},
		{"id too long for the wire", func(c *Config) {}, []string{"a", strings.Repeat("p", 256)},
			"peers: peer id"},
		{"out of range set in Go", func(c *Config) { c.AwarenessMaxMultiplier = 0 }, peers,
			"kind_config.awareness_max_multiplier: must be in [1, 1000], got 0"},
		{"meta_bytes out of range set in Go", func(c *Config) { c.MetaBytes = 600 }, peers,
			"kind_config.meta_bytes: must be in [0, 512], got 600"},
		// A join_request from "a" with 512 metadata bytes: 15 + 1 + 512.
		{"budget below a join_request with metadata", func(c *Config) { c.MetaBytes = 512; c.MaxMessageBytes = 300 }, peers,
			"kind_config.max_message_bytes: must be at least 528: the largest message without updates"},
		// An ack from "a" (14 bytes) with an alive about "a" carrying 200
		// metadata bytes (1 + 8 + 2 + 2 + 200 = 213).
		{"no room for an alive with metadata", func(c *Config) { c.MetaBytes = 200; c.MaxMessageBytes = 220 }, peers,
			"kind_config.max_message_bytes: must be at least 227: an alive update with 200 metadata bytes must fit in an ack"},
		// Without metadata too: 25 + 2 × 60 = 145 > 140 ≥ 135, the bare bound.
		{"no room for an alive about a long id", func(c *Config) { c.MaxMessageBytes = 140 }, []string{strings.Repeat("p", 60), "q"},
			"kind_config.max_message_bytes: must be at least 145: an alive update with 0 metadata bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.mutate(&cfg)
			errs := cfg.Validate(c.peers)
			found := false
			for _, e := range errs {
				found = found || strings.HasPrefix(e.Error(), c.want)
			}
			if !found {
				t.Fatalf("errors %v, want one starting %q", errs, c.want)
			}
		})
	}
	// Eleven peers make log10(n) > 1, so suspicion_mult = 1 is enough.
	cfg := DefaultConfig()
	cfg.SuspicionMult = 1
	if errs := cfg.Validate(ids(11)); len(errs) != 0 {
		t.Fatalf("11 peers, suspicion_mult 1: %v", errs)
	}
}

// TestConfig_IntKey reads back every integer key ParseConfig sets.
func TestConfig_IntKey(t *testing.T) {
	for _, k := range intKeys {
		c, errs := ParseConfig(map[string]any{k.name: k.min})
		if len(errs) > 0 {
			t.Fatalf("%s: %v", k.name, errs)
		}
		if v, ok := c.IntKey(k.name); !ok || v != k.min {
			t.Errorf("IntKey(%q) = %d, %v; want %d", k.name, v, ok, k.min)
		}
	}
	if _, ok := DefaultConfig().IntKey("gossip"); ok {
		t.Error("IntKey took a key that is not an integer")
	}
}
