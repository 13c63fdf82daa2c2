package sweep

import (
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
		err  string
	}{
		{"1/1", Shard{1, 1}, ""},
		{"2/4", Shard{2, 4}, ""},
		{"4/4", Shard{4, 4}, ""},
		{"3/2", Shard{}, "want 1 <= i <= n"},
		{"0/2", Shard{}, "want 1 <= i <= n"},
		{"1/0", Shard{}, "want 1 <= i <= n"},
		{"a/b", Shard{}, "want i/n"},
		{"2", Shard{}, "want i/n"},
		{"-1/2", Shard{}, "want i/n"},
		{"1/2/3", Shard{}, "want i/n"},
	} {
		got, err := ParseShard(c.in)
		if c.err == "" && (err != nil || got != c.want) {
			t.Errorf("%q: %v %v", c.in, got, err)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q: err %v, want %q", c.in, err, c.err)
		}
	}
}

func TestIndexShard(t *testing.T) {
	for _, c := range []struct {
		index, count string
		want         Shard
		err          string
	}{
		{"0", "1", Shard{1, 1}, ""},
		{"0", "4", Shard{1, 4}, ""},
		{"3", "4", Shard{4, 4}, ""},
		{" 2\n", "4", Shard{3, 4}, ""}, // as a shell or a file may hand it over
		{"4", "4", Shard{}, "want 0 <= index < 4"},
		{"-1", "4", Shard{}, "want an integer from 0 to 3"},
		{"", "4", Shard{}, "want an integer from 0 to 3"},
		{"one", "4", Shard{}, "want an integer from 0 to 3"},
		{"1.0", "4", Shard{}, "want an integer from 0 to 3"},
		{"0", "0", Shard{}, "want a positive integer"},
		{"0", "x", Shard{}, "want a positive integer"},
		{"0", "", Shard{}, "want a positive integer"},
		{"0", "4294967296", Shard{}, "want a positive integer"},
	} {
		got, err := IndexShard(c.index, c.count)
		if c.err == "" && (err != nil || got != c.want) {
			t.Errorf("%q of %q: %v %v", c.index, c.count, got, err)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q of %q: err %v, want %q", c.index, c.count, err, c.err)
		}
	}
}

// TestShard_BlocksCoverEverySeedOnceInOrder: shards 1..n, concatenated,
// are the whole sweep, which is what makes merging by concatenation work.
func TestShard_BlocksCoverEverySeedOnceInOrder(t *testing.T) {
	for _, count := range []uint64{0, 1, 7, 200, 1001} {
		for _, n := range []uint64{1, 2, 3, 8, 16} {
			next := uint64(100)
			for i := uint64(1); i <= n; i++ {
				first, k := Shard{i, n}.Seeds(100, count)
				if first != next {
					t.Fatalf("count %d, shard %d/%d starts at %d, want %d", count, i, n, first, next)
				}
				if k > count/n+1 {
					t.Fatalf("count %d, shard %d/%d has %d seeds: unbalanced", count, i, n, k)
				}
				next += k
			}
			if next != 100+count {
				t.Fatalf("count %d over %d shards covers %d seeds", count, n, next-100)
			}
		}
	}
	if first, k := (Shard{}).Seeds(5, 9); first != 5 || k != 9 {
		t.Errorf("the zero shard is the whole sweep: %d %d", first, k)
	}
	if first, k := (Shard{3, 3}).Seeds(0, 1<<62); first+k != 1<<62 {
		t.Errorf("large count: %d %d", first, k)
	}
}
