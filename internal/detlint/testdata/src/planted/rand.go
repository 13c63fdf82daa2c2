package planted

import (
	crand "crypto/rand" // want `detlint\(rand\): import of crypto/rand \(host entropy`
	_ "hash/maphash"    // want `detlint\(rand\): import of hash/maphash`
	"math/rand/v2"      // want `detlint\(rand\): import of math/rand/v2`
)

func draw() uint64 {
	_ = crand.Text()
	return rand.Uint64()
}
