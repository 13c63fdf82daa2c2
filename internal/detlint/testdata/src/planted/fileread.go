package planted

import (
	"io/ioutil"
	"os"
)

func files() {
	_, _ = os.ReadFile("x.toml") // want `detlint\(fileread\): os.ReadFile \(reads host filesystem state`
	f, _ := os.Open("x.toml")    // want `detlint\(fileread\): os.Open `
	_ = f
	_, _ = ioutil.ReadDir(".") // want `detlint\(fileread\): io/ioutil.ReadDir`
}
