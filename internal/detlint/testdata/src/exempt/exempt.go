// Package exempt is run with fileread exempted, as the bundle package is:
// only that rule is off.
package exempt

import (
	"os"
	"time"
)

func load(name string) ([]byte, int64) {
	data, _ := os.ReadFile(name)
	return data, time.Now().UnixNano() // want `detlint\(time\): time.Now`
}
