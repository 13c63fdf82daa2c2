package planted

import "fmt"

var gain complex64 // want `detlint\(float\): complex64 expression`

type policy struct {
	Jitter float64 // want `detlint\(float\): float64 expression \(floating point is forbidden in decisions`
}

func scale(latency int64, p policy) int64 {
	f := float64(latency) * 1.5       // want `detlint\(float\): float64 expression`
	return int64(f) + int64(p.Jitter) // want `detlint\(float\): float64 expression`
}

func describe(v any) string {
	switch x := v.(type) {
	case float64:
		return fmt.Sprint(x) // want `detlint\(float\): float64 expression`
	}
	return ""
}
