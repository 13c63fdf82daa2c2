package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag holding a byte count: a bare integer, or a number
// with a unit — KB, MB, GB (powers of 1000), K, M, G or KiB, MiB, GiB
// (powers of 1024), any case.
type byteSize int64

var byteUnits = []struct {
	suffix string
	mult   float64
}{ // longest first, so "MiB" is not read as "B"
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1},
}

func (b *byteSize) Set(s string) error {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range byteUnits {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*mult > 1<<62 {
		return fmt.Errorf("want a byte count such as 536870912, 512MiB, 1GiB or 800MB")
	}
	*b = byteSize(v * mult)
	return nil
}

func (b *byteSize) String() string {
	v := int64(*b)
	switch {
	case v != 0 && v%(1<<30) == 0:
		return strconv.FormatInt(v>>30, 10) + "GiB"
	case v != 0 && v%(1<<20) == 0:
		return strconv.FormatInt(v>>20, 10) + "MiB"
	}
	return strconv.FormatInt(v, 10)
}
