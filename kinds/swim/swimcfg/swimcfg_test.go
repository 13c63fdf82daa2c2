package swimcfg

import (
	"reflect"
	"testing"

	"github.com/detsim/detsim/kinds/swim/swim"
)

// The daemon reads kind_config from a TOML file; the values must parse as
// the scenario's inline table does.
func TestDecodeTOMLParsesLikeAScenarioTable(t *testing.T) {
	kv, err := DecodeTOML([]byte("probe_interval_ns = 2_000_000_000\ngossip = \"legacy\"\nseeds = [\"a\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, errs := Parse(kv, []string{"a", "b"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := swim.DefaultConfig()
	want.ProbeIntervalNs, want.Gossip, want.Seeds = 2_000_000_000, swim.Legacy, []string{"a"}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got %+v, want %+v", cfg, want)
	}
}

func TestParseReportsParseThenValidateProblems(t *testing.T) {
	_, errs := Parse(map[string]any{"probe_timeout_ns": int64(2_000_000_000), "bogus": int64(1)}, []string{"a"})
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		"kind_config.bogus: unknown key",
		"kind_config.probe_timeout_ns: must be less than probe_interval_ns (1000000000), got 2000000000",
	}
	if len(got) < 2 || !reflect.DeepEqual(got[:2], want) {
		t.Errorf("got %q, want prefix %q", got, want)
	}
}

func TestDecodeTOMLRejectsMalformed(t *testing.T) {
	for _, in := range []string{"x = ", "a = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]"} {
		if _, err := DecodeTOML([]byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestStart(t *testing.T) {
	if Start("joining") != swim.Joining || Start("member") != swim.Member {
		t.Error("initial_state mapping changed")
	}
}
