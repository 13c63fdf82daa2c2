package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// eventView is one events.ndjson record taken apart for display.
type eventView struct {
	at     int64
	host   string // "" for host_id null
	tag    string
	typ    string
	fields []kv // the event's members after type, in order
}

// parseEvent reads an envelope line
// {"virtual_time_ns":T,"host_id":H,"kind_tag":K,"event":{"type":…,…}}.
func parseEvent(b []byte) (eventView, error) {
	var ev eventView
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ev, errors.New("record is not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ev, err
		}
		key, _ := t.(string)
		if key == "event" {
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return ev, errors.New("record's event is not an object")
			}
			var fields []kv
			if err := walkEvent(dec, &fields); err != nil {
				return ev, err
			}
			for _, f := range fields {
				if f.k == "type" && ev.typ == "" {
					ev.typ = f.v
					continue
				}
				ev.fields = append(ev.fields, f)
			}
			continue
		}
		t, err = dec.Token()
		if err != nil {
			return ev, err
		}
		v, err := tokenString(dec, t)
		if err != nil {
			return ev, err
		}
		switch key {
		case "virtual_time_ns":
			ev.at, _ = strconv.ParseInt(v, 10, 64)
		case "host_id":
			if t != nil {
				ev.host = v
			}
		case "kind_tag":
			ev.tag = v
		}
	}
	return ev, nil
}

// walkEvent reads an event's members without flattening nested values.
func walkEvent(dec *json.Decoder, out *[]kv) error {
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		t, err = dec.Token()
		if err != nil {
			return err
		}
		v, err := tokenString(dec, t)
		if err != nil {
			return err
		}
		*out = append(*out, kv{k, v})
	}
	_, err := dec.Token()
	return err
}

func (ev *eventView) field(k string) string {
	for _, f := range ev.fields {
		if f.k == k {
			return f.v
		}
	}
	return ""
}

// summary is the one-line gist of the event after its type. A state
// transition reads the way the sketch shows it; every other event lists
// its members as k=v in record order.
func (ev *eventView) summary() string {
	if ev.typ == "state_transition" {
		s := ev.field("subject") + " " + ev.field("from") + "→" + ev.field("to") +
			" inc " + ev.field("incarnation") + " (" + ev.field("reason") + ")"
		if o := ev.field("observer"); o != "" && o != ev.host {
			s = "by " + o + ": " + s
		}
		return s
	}
	var b strings.Builder
	for i, f := range ev.fields {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f.k)
		b.WriteByte('=')
		b.WriteString(f.v)
	}
	return b.String()
}
