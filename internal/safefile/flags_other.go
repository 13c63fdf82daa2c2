//go:build !unix

package safefile

import "os"

// ReadFlags opens for reading; only unix has FIFOs that block an open.
const ReadFlags = os.O_RDONLY
