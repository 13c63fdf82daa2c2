package scenarios

import "fmt"

// snapshots validates [[snapshots]]: each one instant within the run.
func (c *checker) snapshots(top fields) {
	entries, _, _ := top.tableArray("snapshots")
	var out []int64
	for i, e := range entries {
		f := fields{r: c.r, prefix: fmt.Sprintf("snapshots[%d].", i), tbl: e}
		f.checkKeys("at_ns")
		if at, ok := c.atTime(f, "at_ns", true); ok {
			out = append(out, at)
		}
	}
	c.s.Snapshots = out
}
