package agent

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Summary is the agent's one-line snapshot summary for the stepper:
// phase, turn, the pending call, the tools awaited, retries and the
// store's length ("calling · turn 2/3 · call t2.a1 3 frames · retries 1 ·
// store 9").
func Summary(snap []byte) string {
	var s struct {
		Phase       string `json:"phase"`
		Turn, Turns int64
		Attempt     int64 `json:"attempt"`
		Pending     *struct {
			ID      string `json:"id"`
			Frames  int64  `json:"frames"`
			Bytes   int64  `json:"bytes"`
			Content bool   `json:"content_delivered"`
		} `json:"pending_call"`
		Tools      []string `json:"pending_tools"`
		Retries    int64    `json:"retries"`
		Cancelling bool     `json:"cancelling"`
		Outcome    string   `json:"outcome"`
		StoreLen   int64    `json:"store_len"`
	}
	if json.Unmarshal(snap, &s) != nil || s.Phase == "" {
		return ""
	}
	parts := []string{s.Phase}
	if s.Outcome != "" {
		parts[0] += " " + s.Outcome
	}
	if s.Cancelling && s.Phase != "done" {
		parts[0] += " (cancelling)"
	}
	parts = append(parts, "turn "+strconv.FormatInt(min(s.Turn, s.Turns), 10)+"/"+strconv.FormatInt(s.Turns, 10))
	if s.Pending != nil {
		c := "call " + s.Pending.ID + " " + strconv.FormatInt(s.Pending.Frames, 10) + " frames"
		if s.Pending.Content {
			c += ", content"
		}
		parts = append(parts, c)
	} else if s.Phase == "backoff" {
		parts = append(parts, "next attempt "+strconv.FormatInt(s.Attempt+1, 10))
	}
	if len(s.Tools) > 0 {
		parts = append(parts, "tools "+strings.Join(s.Tools, ","))
	}
	parts = append(parts, "retries "+strconv.FormatInt(s.Retries, 10), "store "+strconv.FormatInt(s.StoreLen, 10))
	return strings.Join(parts, " · ")
}
