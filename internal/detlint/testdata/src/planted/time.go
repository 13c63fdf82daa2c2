// Package planted holds one violation of each detlint rule, each marked
// with the report it must produce.
package planted

import "time"

func clock() int64 {
	start := time.Now()          // want `detlint\(time\): time.Now \(reads the host clock`
	_ = time.Since(start)        // want `detlint\(time\): time.Since`
	<-time.After(time.Second)    // want `detlint\(time\): time.After \(a host timer`
	time.Sleep(time.Millisecond) // want `detlint\(time\): time.Sleep`
	now := time.Now              // want `detlint\(time\): time.Now`
	return now().UnixNano()
}
