// Package swimcfg is the one parser of a SWIM peer's kind_config: the
// simulator's swim kind (kinds/swim/swimhost) and the real daemon (kinds/swim/cmd/swimd,
// kinds/swim/live/) both turn a kind_config table into a swim.Config here, so the two
// sides of a live-versus-sim comparison can never read the same keys
// differently. It adds nothing to swim.ParseConfig and Config.Validate but
// the field-error type the scenario loader reports and the mapping of
// initial_state onto swim.Start.
package swimcfg

import (
	"fmt"

	"github.com/BurntSushi/toml"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/tomlguard"
	"github.com/detsim/detsim/kinds/swim/swim"
)

// Parse builds the swim.Config of a peer from its kind_config (values as a
// TOML decoder produces them) and checks it against the declared peer ids
// (sorted, the peer's own included): swim.ParseConfig's problems first,
// then Config.Validate(peers)'s, each named by its kind_config path. A
// config with problems must not be used.
func Parse(kindConfig map[string]any, peers []string) (swim.Config, []hosts.FieldError) {
	cfg, errs := swim.ParseConfig(kindConfig)
	errs = append(errs, cfg.Validate(peers)...)
	var out []hosts.FieldError
	for _, e := range errs {
		out = append(out, hosts.FieldError{Field: e.Field, Msg: e.Msg})
	}
	return cfg, out
}

// Start maps an initial_state onto the node's start: "joining" starts
// Joining, anything else (the kind's "member") starts Member. "down" is
// the caller's business: such a peer is not started at all.
func Start(state string) swim.Start {
	if state == "joining" {
		return swim.Joining
	}
	return swim.Member
}

// MaxTOMLBytes bounds a kind_config file DecodeTOML reads.
const MaxTOMLBytes = 1 << 20

// DecodeTOML decodes a kind_config written as a TOML document (its top
// level is the table, as in `probe_interval_ns = 1_000_000_000`) into the
// values Parse takes, with the scenario loader's nesting guard.
func DecodeTOML(data []byte) (map[string]any, error) {
	if len(data) > MaxTOMLBytes {
		return nil, fmt.Errorf("kind_config: %d bytes, more than %d", len(data), MaxTOMLBytes)
	}
	if err := tomlguard.Check(data); err != nil {
		return nil, fmt.Errorf("kind_config: %w", err)
	}
	kv := map[string]any{}
	if _, err := toml.Decode(string(data), &kv); err != nil {
		return nil, fmt.Errorf("kind_config: %w", err)
	}
	return kv, nil
}
