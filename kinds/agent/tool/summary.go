package tool

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Summary is the tool's one-line snapshot summary for the stepper: the
// effects used and each run's effect state ("effects 1/2 used · t1.toolu_1
// hang started").
//
// Summary reads the snapshot as the provider's Summary reads its own, alike
// in shape only: the two snapshots have different fields.
func Summary(snap []byte) string {
	var s struct {
		Effects *int64 `json:"effects"`
		Used    int64  `json:"used"`
		Runs    []struct {
			Call   string `json:"call"`
			Effect string `json:"effect"`
			State  string `json:"state"`
		} `json:"runs"`
	}
	if json.Unmarshal(snap, &s) != nil || s.Effects == nil {
		return ""
	}
	parts := []string{"effects " + strconv.FormatInt(s.Used, 10) + "/" + strconv.FormatInt(*s.Effects, 10) + " used"}
	if len(s.Runs) == 0 {
		parts = append(parts, "idle")
	}
	for _, r := range s.Runs {
		parts = append(parts, r.Call+" "+r.Effect+" "+r.State)
	}
	return strings.Join(parts, " · ")
}
