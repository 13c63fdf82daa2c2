package property

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/detsim/detsim/hosts/builtin"
	"github.com/detsim/detsim/scenarios"
)

// TestScenario_TreeIsWhatItsTOMLDecodesTo holds build's shortcut to
// Parse: for every library property, at both corners and over many
// seeds, the tree a scenario file was encoded from, as
// scenarios.Decoded copies it, is what decoding the file gives; it is
// taken (no tree falls back to decoding); and the scenario built from it
// is deeply equal to the one Parse makes of the file, its merged tree
// (what TOML() and every pin write) included.
func TestScenario_TreeIsWhatItsTOMLDecodesTo(t *testing.T) {
	reg := builtin.Registry()
	for _, name := range LibraryNames(reg) {
		p := libraryProperty(t, name, reg)
		type point struct {
			what string
			pt   Point
			pick func(Range) int64
		}
		var pts []point
		for _, pick := range []func(Range) int64{
			func(rg Range) int64 { return rg.Min },
			func(rg Range) int64 { return rg.Max },
		} {
			pts = append(pts, point{"corner", p.corner(pick), pick})
		}
		for seed := range uint64(60) {
			pts = append(pts, point{fmt.Sprint("seed ", seed), p.Point(seed), nil})
		}
		for _, c := range pts {
			tree, data, err := p.encodeTree(c.pt, c.pick)
			if err != nil {
				t.Fatal(err)
			}
			want, err := scenarios.DecodeTree(data)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := scenarios.Decoded(tree)
			if !ok {
				t.Fatalf("%s %s: the tree holds a value ParseEncoded does not take", name, c.what)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s %s: the tree is not what its file decodes to:\n tree %v\n file %v", name, c.what, got, want)
			}
			fast, ok, ferr := scenarios.ParseEncoded("x.toml", data, tree, reg)
			if !ok {
				t.Fatalf("%s %s: ParseEncoded refused the tree", name, c.what)
			}
			slow, serr := scenarios.Parse("x.toml", data, reg, func(string) ([]byte, error) {
				return nil, errors.New("a generated scenario extends nothing")
			})
			if fmt.Sprint(ferr) != fmt.Sprint(serr) {
				t.Fatalf("%s %s: ParseEncoded error %v, Parse error %v", name, c.what, ferr, serr)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%s %s: ParseEncoded and Parse made different scenarios", name, c.what)
			}
		}
	}
}

// TestScenarioWithoutFile holds the sweep's scenario to Scenario's: for
// every library property over many seeds, ScenarioWithoutFile takes the
// seed's tree without encoding its file (scenarios.ParseTree does not
// fall back), and makes the scenario Scenario makes of the file, merged
// tree included (so TOML(), which every pin writes, is the same bytes),
// but for SourceSHA256, which it leaves zero.
func TestScenarioWithoutFile(t *testing.T) {
	reg := builtin.Registry()
	for _, name := range LibraryNames(reg) {
		p := libraryProperty(t, name, reg)
		for seed := range uint64(60) {
			tree, err := p.tree(p.Point(seed), nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := scenarios.ParseTree("x.toml", tree, reg); !ok {
				t.Fatalf("%s seed %d: ParseTree does not take the tree", name, seed)
			}
			got, gerr := p.ScenarioWithoutFile(seed, reg)
			want, werr := p.Scenario(seed, reg)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Fatalf("%s seed %d: ScenarioWithoutFile error %v, Scenario error %v", name, seed, gerr, werr)
			}
			if werr != nil {
				continue
			}
			if got.SourceSHA256 != [32]byte{} {
				t.Fatalf("%s seed %d: a scenario without a file has a SourceSHA256", name, seed)
			}
			if !bytes.Equal(got.TOML(), want.TOML()) {
				t.Fatalf("%s seed %d: TOML() differs", name, seed)
			}
			want.SourceSHA256 = [32]byte{}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s seed %d: ScenarioWithoutFile and Scenario made different scenarios", name, seed)
			}
		}
	}
}
