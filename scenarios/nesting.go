package scenarios

import "github.com/detsim/detsim/internal/tomlguard"

// MaxNesting bounds how deeply arrays and tables may nest, by brackets
// or by dotted keys (tomlguard.MaxNesting: the decoder's cost grows
// faster than linearly with depth).
const MaxNesting = tomlguard.MaxNesting

// CheckNesting explains the first place data nests deeper than
// MaxNesting (tomlguard.Check). Every loader of TOML input runs it
// before decoding.
func CheckNesting(data []byte) error { return tomlguard.Check(data) }
