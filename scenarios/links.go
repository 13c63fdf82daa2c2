package scenarios

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/detsim/detsim/network"
)

// linkEntry is one validated [[links]] entry: its endpoints ("*" or an id)
// and the fields it overrides.
type linkEntry struct {
	from, to string
	set      []int64 // indexed like PolicyFields; meaningful where has is true
	has      []bool
}

// links resolves the link graph (DESIGN §4): no [[links]] key at all is a
// full mesh of [default_link]; otherwise only the declared directed edges
// exist, "*" expanding to every peer and "eu-*" to every peer whose id
// starts with "eu-" (self-edges skipped), and later entries override
// earlier ones field by field on top of [default_link]. The entries are
// resolved into regions (linkGraph), never edge by edge, so ten thousand
// peers under "*" cost what their entries say; a graph of at most
// MaxLinks edges is then spelled out in Links, a larger one kept as
// Graph, whose edges the network makes as they are first used.
func (c *checker) links(top fields) {
	if !top.has("links") {
		c.s.FullMesh = true
		c.setLinks(nil, true)
		return
	}

	raw, _, ok := top.tableArray("links")
	if len(raw) > MaxLinkEntries {
		top.add("links", "%d [[links]] entries; at most %d are supported", len(raw), MaxLinkEntries)
		return
	}
	entries := make([]linkEntry, 0, len(raw))
	for i, e := range raw {
		le, valid := c.linkEntry(fields{r: c.r, prefix: fmt.Sprintf("links[%d].", i), tbl: e})
		ok = ok && valid
		if valid {
			entries = append(entries, le)
		}
	}
	g, regions := c.linkGraph(entries)
	if regions > MaxLinkRegions {
		top.add("links", "the [[links]] entries split the peer pairs into more than %d regions of one policy each (%d entries); declare fewer entries that cross (a \"*\" or \"eu-*\" entry is one region)", MaxLinkRegions, len(entries))
		return
	}
	if g.NumEdges() > MaxLinks {
		c.s.Graph = &g
		c.edgesOK = ok
		return
	}
	var links []network.Link
	g.Each(func(from, to int, p *network.Policy) {
		links = append(links, network.Link{Edge: network.Edge{From: c.ids[from], To: c.ids[to]}, Policy: *p})
	})
	c.setLinks(links, ok)
}

// span is the peers an endpoint names, positions lo..hi-1 of the sorted
// ids: "*" is all of them, "eu-*" a contiguous run, an id one.
func (c *checker) span(e string) (lo, hi int) {
	if e == "*" {
		return 0, len(c.ids)
	}
	if prefix, ok := strings.CutSuffix(e, "*"); ok {
		return c.prefixRange(prefix)
	}
	i, _ := slices.BinarySearch(c.ids, e)
	return i, i + 1
}

// sweepEvent starts (add) or ends an entry's span at pos.
type sweepEvent struct {
	pos   int
	add   bool
	entry int
}

// sweep calls fn with each run [lo, hi) of positions over which the set
// of entries covering it is the same and not empty, with that set in
// declaration order. fn must not keep the slice.
func sweep(events []sweepEvent, fn func(lo, hi int, active []int) bool) {
	slices.SortFunc(events, func(a, b sweepEvent) int { return cmp.Compare(a.pos, b.pos) })
	var active []int
	for i := 0; i < len(events); {
		pos := events[i].pos
		for ; i < len(events) && events[i].pos == pos; i++ {
			at, found := slices.BinarySearch(active, events[i].entry)
			switch {
			case events[i].add && !found:
				active = slices.Insert(active, at, events[i].entry)
			case !events[i].add && found:
				active = slices.Delete(active, at, at+1)
			}
		}
		if i < len(events) && len(active) > 0 && !fn(pos, events[i].pos, active) {
			return
		}
	}
}

// linkGraph resolves entries into regions: senders are split where an
// entry's from-span starts or ends, and each run of senders' receivers
// where an entry of that run's to-span does; every piece covered by some
// entry gets [default_link] overridden by its covering entries in order.
// Equal neighbouring pieces and runs are merged. It stops once the
// regions pass MaxLinkRegions and returns how many it had made.
func (c *checker) linkGraph(entries []linkEntry) (network.Graph, int) {
	var g network.Graph
	policyAt := map[network.Policy]int32{}
	var rows []sweepEvent
	for i, le := range entries {
		lo, hi := c.span(le.from)
		rows = append(rows, sweepEvent{lo, true, i}, sweepEvent{hi, false, i})
	}
	regions := 0
	var cols []sweepEvent
	sweep(rows, func(lo, hi int, active []int) bool {
		cols = cols[:0]
		for _, i := range active {
			clo, chi := c.span(entries[i].to)
			cols = append(cols, sweepEvent{clo, true, i}, sweepEvent{chi, false, i})
		}
		var cells []network.GraphCell
		sweep(cols, func(lo, hi int, cover []int) bool {
			p := c.s.DefaultLink
			for _, i := range cover {
				for j, pf := range PolicyFields {
					if entries[i].has[j] {
						*pf.Field(&p) = entries[i].set[j]
					}
				}
			}
			pi, seen := policyAt[p]
			if !seen {
				pi = int32(len(g.Policies))
				policyAt[p] = pi
				g.Policies = append(g.Policies, p)
			}
			if k := len(cells) - 1; k >= 0 && cells[k].Hi == int32(lo) && cells[k].Policy == pi {
				cells[k].Hi = int32(hi)
				return true
			}
			cells = append(cells, network.GraphCell{Lo: int32(lo), Hi: int32(hi), Policy: pi})
			regions++
			return regions <= MaxLinkRegions
		})
		if k := len(g.Rows) - 1; k >= 0 && g.Rows[k].Hi == int32(lo) && slices.Equal(g.Rows[k].Cells, cells) {
			g.Rows[k].Hi = int32(hi)
			regions -= len(cells)
			return true
		}
		g.Rows = append(g.Rows, network.GraphRow{Lo: int32(lo), Hi: int32(hi), Cells: cells})
		return regions <= MaxLinkRegions
	})
	return g, regions
}

// linkEntry validates one [[links]] entry.
func (c *checker) linkEntry(f fields) (linkEntry, bool) {
	f.checkKeys(append([]string{"from", "to"}, policyKeys()...)...)
	before := len(*c.r.errs)
	le := linkEntry{set: make([]int64, len(PolicyFields)), has: make([]bool, len(PolicyFields))}
	le.from, _ = c.endpoint(f, "from")
	le.to, _ = c.endpoint(f, "to")
	if le.from != "" && le.from == le.to && !strings.HasSuffix(le.from, "*") {
		f.add("to", "a self-edge (%s → %s) is not allowed", le.from, le.to)
	}
	for j, pf := range PolicyFields {
		if v, ok := pf.read(f); ok {
			le.set[j], le.has[j] = v, true
		}
	}
	return le, len(*c.r.errs) == before
}

// endpoint reads a link's from or to: "*", a declared peer id, or a
// prefix followed by "*" ("eu-*": every peer whose id starts with "eu-"),
// which must name at least one peer.
func (c *checker) endpoint(f fields, key string) (string, bool) {
	s, ok := f.tbl[key].(string)
	if ok && s == "*" {
		return s, true
	}
	if prefix, glob := strings.CutSuffix(s, "*"); ok && glob {
		if strings.Contains(prefix, "*") {
			f.add(key, "%q: a pattern is a prefix followed by one \"*\"", s)
			return "", false
		}
		if lo, hi := c.prefixRange(prefix); lo == hi {
			if c.peersRead {
				f.add(key, "%q names no peer: no declared id starts with %q", s, prefix)
			}
			return "", false
		}
		return s, true
	}
	return c.peerRef(f, key)
}

// prefixRange is the ids (sorted) that start with prefix, as the index
// range [lo, hi): sorted strings sharing a prefix are contiguous.
func (c *checker) prefixRange(prefix string) (lo, hi int) {
	lo, _ = slices.BinarySearch(c.ids, prefix)
	hi = lo
	for hi < len(c.ids) && strings.HasPrefix(c.ids[hi], prefix) {
		hi++
	}
	return lo, hi
}

func (c *checker) setLinks(links []network.Link, complete bool) {
	c.s.Links = links
	c.edgesOK = complete
}

// hasEdge reports whether e is in the resolved link graph. Its endpoints
// are declared peers.
func (c *checker) hasEdge(e network.Edge) bool {
	if c.s.FullMesh {
		return e.From != e.To
	}
	if c.s.Graph != nil {
		from, _ := slices.BinarySearch(c.ids, e.From)
		to, _ := slices.BinarySearch(c.ids, e.To)
		_, found := c.s.Graph.Lookup(from, to)
		return found
	}
	_, found := slices.BinarySearchFunc(c.s.Links, e, func(l network.Link, e network.Edge) int {
		return compareEdges(l.Edge, e)
	})
	return found
}

func compareEdges(a, b network.Edge) int {
	return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.To, b.To))
}
