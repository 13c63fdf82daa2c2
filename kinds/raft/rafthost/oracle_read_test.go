package rafthost

import (
	"reflect"
	"testing"
)

// TestReadAppended_FastPathAgreesWithEncodingJSON: a log_append as the
// hosts write it is read in one pass; the same record with other
// spacing or member order falls back to encoding/json and reads the
// same; a malformed one is an error either way.
func TestReadAppended_FastPathAgreesWithEncodingJSON(t *testing.T) {
	e := &logAppend{first: 7, last: 9, truncated: true, terms: []uint64{2, 2, 3}, chains: []uint64{0xdeadbeef, 1, 0xffffffffffffffff}}
	written := e.AppendJSON(nil)
	fast, ok := scanAppended(written, nil, nil)
	if !ok {
		t.Fatalf("the fast reader did not recognise %s", written)
	}
	want := appended{First: 7, Last: 9, Terms: []uint64{2, 2, 3}, Chains: []uint64{0xdeadbeef, 1, 0xffffffffffffffff}}
	if !reflect.DeepEqual(fast, want) {
		t.Fatalf("fast %+v, want %+v", fast, want)
	}
	spaced := []byte(`{"chains": ["00000000deadbeef","0000000000000001","ffffffffffffffff"], "terms":[2,2,3], "last":9, "first":7, "type":"log_append"}`)
	if _, ok := scanAppended(spaced, nil, nil); ok {
		t.Fatal("the fast reader took spacing it is not written with")
	}
	slow, err := readAppended(spaced, nil, nil)
	if err != nil || !reflect.DeepEqual(slow, want) {
		t.Fatalf("slow %+v %v, want %+v", slow, err, want)
	}
	for _, bad := range []string{
		`{"type":"log_append","first":7,"last":9,"terms":[2,2],"chains":["00000000deadbeef","0000000000000001","ffffffffffffffff"]}`,
		`{"type":"log_append","first":7,"last":7,"terms":[2],"chains":["beef"]}`,
		`{"type":"log_append","first":9,"last":7,"terms":[],"chains":[]}`,
	} {
		if a, err := readAppended([]byte(bad), nil, nil); err == nil {
			t.Errorf("%s read as %+v", bad, a)
		}
	}
}
