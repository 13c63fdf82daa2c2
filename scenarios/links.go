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
// earlier ones field by field on top of [default_link].
func (c *checker) links(top fields) {
	n := len(c.ids)
	if !top.has("links") {
		if n*(n-1) > MaxLinks {
			top.add("links", "no [[links]] means a full mesh: %d peers make %d directed edges, more than the %d supported; declare [[links]]", n, n*(n-1), MaxLinks)
			return
		}
		c.s.FullMesh = true
		c.setLinks(nil, true)
		return
	}

	raw, _, ok := top.tableArray("links")
	entries := make([]linkEntry, 0, len(raw))
	expansion := 0
	for i, e := range raw {
		le, valid := c.linkEntry(fields{r: c.r, prefix: fmt.Sprintf("links[%d].", i), tbl: e})
		ok = ok && valid
		if !valid {
			continue
		}
		expansion += c.endpointCount(le.from) * c.endpointCount(le.to)
		if expansion > MaxLinkExpansion {
			top.add("links", "the [[links]] entries name more than %d edges once \"*\" is expanded", MaxLinkExpansion)
			return
		}
		entries = append(entries, le)
	}

	all := make([]int, n)
	index := make(map[string]int, n)
	for i, id := range c.ids {
		all[i], index[id] = i, i
	}
	endpoints := func(e string) []int {
		if e == "*" {
			return all
		}
		if prefix, ok := strings.CutSuffix(e, "*"); ok {
			lo, hi := c.prefixRange(prefix)
			return all[lo:hi]
		}
		return []int{index[e]}
	}
	slots := newEdgeSlots(n, min(expansion, MaxLinks+1))
	for _, le := range entries {
		for _, from := range endpoints(le.from) {
			for _, to := range endpoints(le.to) {
				if from == to {
					continue
				}
				p := slots.policy(from, to, c.s.DefaultLink)
				for j, pf := range PolicyFields {
					if le.has[j] {
						*pf.Field(p) = le.set[j]
					}
				}
			}
		}
	}
	if len(slots.links) > MaxLinks {
		top.add("links", "%d directed edges declared, more than the %d supported", len(slots.links), MaxLinks)
		return
	}
	// Peer indices follow the sorted ids, so sorting by them sorts the
	// edges by (From, To).
	slices.SortFunc(slots.links, func(a, b indexedLink) int {
		return cmp.Or(cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to))
	})
	links := make([]network.Link, len(slots.links))
	for i, l := range slots.links {
		links[i] = network.Link{Edge: network.Edge{From: c.ids[l.from], To: c.ids[l.to]}, Policy: l.policy}
	}
	c.setLinks(links, ok)
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

func (c *checker) endpointCount(e string) int {
	if e == "*" {
		return len(c.ids)
	}
	if prefix, ok := strings.CutSuffix(e, "*"); ok {
		lo, hi := c.prefixRange(prefix)
		return hi - lo
	}
	return 1
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
	_, found := slices.BinarySearchFunc(c.s.Links, e, func(l network.Link, e network.Edge) int {
		return compareEdges(l.Edge, e)
	})
	return found
}

func compareEdges(a, b network.Edge) int {
	return cmp.Or(strings.Compare(a.From, b.From), strings.Compare(a.To, b.To))
}
