package clean

import (
	"math/rand"
	"testing"
	"time"
)

// Test files are not checked: tests may use the clock and randomness.
func TestNotChecked(t *testing.T) {
	_ = time.Now()
	_ = rand.Float64()
}
