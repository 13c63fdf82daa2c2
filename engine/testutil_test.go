package engine

import (
	"fmt"

	"github.com/detsim/detsim/hosts"
)

type hostsAction = hosts.Action

func fmtSscan(line string, at *int64) (int, error) {
	return fmt.Sscanf(line, `{"virtual_time_ns":%d,`, at)
}
