package exemptfile

import "time"

func decide() bool {
	return time.Now().Unix()%2 == 0 // want `detlint\(time\): time.Now`
}

func share(a, b int64) float64 { return float64(a) / float64(b) } // want `detlint\(float\)`
