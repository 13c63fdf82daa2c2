package screen

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/hosts/pane"
)

// The host pane for a kind without a pane of its own (pane.Drawer):
// the kind's one-line summary (pane.Summarizer), then its
// snapshot as a tree — objects indented under their key, arrays of
// scalars on one line, arrays of objects as numbered children — with
// the leaves the last step changed marked "*". A flat snapshot (echo)
// keeps the denser key/value columns.

// kindLines is the pane body of a host whose kind k draws no pane of
// its own (k nil: an unregistered kind).
func kindLines(c *drawCtx, k hosts.Kind, r *HostRow, w int) []string {
	var out []string
	if sum, ok := k.(pane.Summarizer); ok {
		if s := sum.Summary(r.view.Snapshot); s != "" {
			out = append(out, c.st.dim.Render(clip(" "+s, w)))
		}
	}
	tree, ok := snapshotTree(r.view.Snapshot)
	if !ok || flat(tree) {
		return append(out, kvLines(c, r.kv, r.kvChanged, w)...)
	}
	changed := map[string]bool{}
	for i, e := range r.kv {
		if r.kvChanged != nil && r.kvChanged[i] {
			changed[e.k] = true
		}
	}
	kw := 1
	for _, n := range tree.kids {
		kw = max(kw, len(n.key))
	}
	kw = min(kw, 22)
	for _, n := range tree.kids {
		out = n.lines(c, out, "", 1, kw, w, changed, false)
	}
	return out
}

// node is one member of a snapshot: a scalar (leaf), an object or an
// array, in document order.
type node struct {
	key   string // member name, or "[i]" in an array
	leaf  bool
	value string // a leaf's value; an array of scalars' "[a, b]"
	kids  []*node
}

// snapshotTree parses a JSON object into nodes, keeping member order.
func snapshotTree(b []byte) (*node, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, err := readNode(dec, "", 0)
	if err != nil || n.leaf {
		return nil, false
	}
	return n, true
}

const maxTreeDepth = 16

func readNode(dec *json.Decoder, key string, depth int) (*node, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &node{key: key}
	d, isDelim := t.(json.Delim)
	if !isDelim {
		n.leaf = true
		n.value, err = tokenString(dec, t)
		return n, err
	}
	if depth >= maxTreeDepth {
		// Deeper than any snapshot: show it compactly.
		n.leaf = true
		n.value, err = tokenString(dec, t)
		return n, err
	}
	switch d {
	case '{':
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			kid, err := readNode(dec, k, depth+1)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, kid)
		}
	case '[':
		for i := 0; dec.More(); i++ {
			kid, err := readNode(dec, "["+strconv.Itoa(i)+"]", depth+1)
			if err != nil {
				return nil, err
			}
			n.kids = append(n.kids, kid)
		}
		scalars := true
		for _, k := range n.kids {
			scalars = scalars && k.leaf
		}
		if scalars {
			vals := make([]string, len(n.kids))
			for i, k := range n.kids {
				vals[i] = k.value
			}
			n.leaf, n.kids = true, nil
			n.value = "[" + strings.Join(vals, ", ") + "]"
		}
	}
	_, err = dec.Token() // the closing delimiter
	return n, err
}

// flat: every member of the object is a leaf.
func flat(n *node) bool {
	for _, k := range n.kids {
		if !k.leaf {
			return false
		}
	}
	return true
}

// lines renders n at indent, its path (for change marks) under prefix.
// A flattened snapshot keeps an array of objects as one value, so a
// change to it marks every leaf under it (marked).
func (n *node) lines(c *drawCtx, out []string, prefix string, indent, kw, w int, changed map[string]bool, marked bool) []string {
	path := n.key
	switch {
	case prefix != "" && strings.HasPrefix(n.key, "["):
		path = prefix + n.key
	case prefix != "":
		path = prefix + "." + n.key
	}
	marked = marked || changed[path]
	pad := strings.Repeat("  ", indent-1)
	if n.leaf {
		line := " " + pad + fit(n.key, max(kw-2*(indent-1), len(n.key))) + " " + n.value
		if marked {
			return append(out, c.st.changed.Render(clip(line+" *", w)))
		}
		return append(out, clip(line, w))
	}
	head := " " + pad + n.key
	if len(n.kids) == 0 {
		head += " (empty)"
	}
	out = append(out, c.st.dim.Render(clip(head, w)))
	for _, k := range n.kids {
		out = k.lines(c, out, path, indent+1, kw, w, changed, marked)
	}
	return out
}
