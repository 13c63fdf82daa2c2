package cli

import (
	"testing"

	"github.com/detsim/detsim/internal/gobin"
)

func TestMain(m *testing.M) { gobin.Main(m) }
