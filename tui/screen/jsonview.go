package screen

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/detsim/detsim/internal/numfmt"
	"github.com/detsim/detsim/internal/term"
)

// kv is one member of a flattened JSON object, in document order.
type kv struct{ k, v string }

// flattenJSON turns a JSON object into key/value pairs in document order,
// nested objects as dotted keys ("counters.messages_sent") and arrays as
// one compact value ("[a,b]"). Member order matters: records and snapshots
// are written in a fixed order that tells a story, so no map is involved.
func flattenJSON(b []byte) ([]kv, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []kv
	if err := walkObject(dec, "", &out); err != nil {
		return out, err
	}
	return out, nil
}

// walkObject reads members up to and including the closing brace.
func walkObject(dec *json.Decoder, prefix string, out *[]kv) error {
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		if prefix != "" {
			k = prefix + "." + k
		}
		t, err = dec.Token()
		if err != nil {
			return err
		}
		if d, ok := t.(json.Delim); ok && d == '{' {
			if err := walkObject(dec, k, out); err != nil {
				return err
			}
			continue
		}
		v, err := tokenString(dec, t)
		if err != nil {
			return err
		}
		*out = append(*out, kv{k, v})
	}
	_, err := dec.Token() // '}'
	return err
}

// tokenString renders the value starting with token t compactly, without
// quotes: strings as-is, integers with their digits grouped as the header
// groups them (one number format on every pane: 1 426 638), other numbers
// as written, arrays as [a,b], objects as {k:v}.
func tokenString(dec *json.Decoder, t json.Token) (string, error) {
	switch v := t.(type) {
	case string:
		return term.Escape(v), nil
	case json.Number:
		return groupInteger(v.String()), nil
	case bool:
		if v {
			return "true", nil
		}
		return "false", nil
	case nil:
		return "null", nil
	case json.Delim:
		var b strings.Builder
		open, closing := byte('['), byte(']')
		if v == '{' {
			open, closing = '{', '}'
		}
		b.WriteByte(open)
		first := true
		for dec.More() {
			if !first {
				b.WriteByte(',')
			}
			first = false
			if v == '{' {
				k, err := dec.Token()
				if err != nil {
					return "", err
				}
				ks, _ := k.(string)
				b.WriteString(term.Escape(ks))
				b.WriteByte(':')
			}
			t, err := dec.Token()
			if err != nil {
				return "", err
			}
			s, err := tokenString(dec, t)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
		if _, err := dec.Token(); err != nil {
			return "", err
		}
		b.WriteByte(closing)
		return b.String(), nil
	}
	return "", errors.New("unexpected JSON token")
}

// groupInteger groups the digits of an integer literal (-12345 → -12 345);
// anything else (a fraction, an exponent) is returned as it is.
func groupInteger(s string) string {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return s
	}
	return s[:len(s)-len(digits)] + numfmt.Group(digits)
}

// prettyJSON indents a record or snapshot for the record pane; bytes that
// are not JSON are shown as they are.
func prettyJSON(b []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(b), "", "  "); err != nil {
		return string(b)
	}
	return out.String()
}
