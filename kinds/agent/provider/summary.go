package provider

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Summary is the provider's one-line snapshot summary for the stepper:
// its script position and the streams in flight ("served 3 · entries
// 3/9 used · next 3 · streaming t2.a1 entry 3 5/13").
func Summary(snap []byte) string {
	var s struct {
		Served  *int64  `json:"served"`
		Entries int64   `json:"entries"`
		Used    []int64 `json:"used"`
		Streams []struct {
			Call   string `json:"call"`
			Entry  int64  `json:"entry"`
			Sent   int64  `json:"sent"`
			Pieces int64  `json:"pieces"`
		} `json:"streams"`
	}
	if json.Unmarshal(snap, &s) != nil || s.Served == nil {
		return ""
	}
	parts := []string{"served " + strconv.FormatInt(*s.Served, 10),
		"entries " + strconv.Itoa(len(s.Used)) + "/" + strconv.FormatInt(s.Entries, 10) + " used"}
	next := int64(-1)
	for i := range s.Entries {
		used := false
		for _, u := range s.Used {
			used = used || u == i
		}
		if !used {
			next = i
			break
		}
	}
	if next >= 0 {
		parts = append(parts, "next unused "+strconv.FormatInt(next, 10))
	} else {
		parts = append(parts, "script exhausted")
	}
	for _, st := range s.Streams {
		parts = append(parts, "streaming "+st.Call+" entry "+strconv.FormatInt(st.Entry, 10)+" "+
			strconv.FormatInt(st.Sent, 10)+"/"+strconv.FormatInt(st.Pieces, 10))
	}
	return strings.Join(parts, " · ")
}
