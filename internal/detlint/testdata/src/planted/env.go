package planted

import (
	"os"
	"syscall"
)

func env() (string, int) {
	seed := os.Getenv("DETSIM_SEED") // want `detlint\(env\): os.Getenv \(reads host process state`
	host, _ := os.Hostname()         // want `detlint\(env\): os.Hostname`
	_ = syscall.Getpid()             // want `detlint\(env\): syscall.Getpid`
	return seed + host, os.Getpid()  // want `detlint\(env\): os.Getpid`
}
