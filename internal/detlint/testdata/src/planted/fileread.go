package planted

import (
	"io/fs"
	"io/ioutil"
	"os"
	"path/filepath"
)

func files() {
	_, _ = os.ReadFile("x.toml") // want `detlint\(fileread\): os.ReadFile \(reads host filesystem state`
	f, _ := os.Open("x.toml")    // want `detlint\(fileread\): os.Open `
	_ = f
	f, _ = os.OpenFile("x.toml", os.O_RDONLY, 0) // want `detlint\(fileread\): os.OpenFile `
	_ = f
	_, _ = os.ReadDir(".")      // want `detlint\(fileread\): os.ReadDir `
	_, _ = ioutil.ReadFile("x") // want `detlint\(fileread\): io/ioutil.ReadFile `
	_, _ = ioutil.ReadDir(".")  // want `detlint\(fileread\): io/ioutil.ReadDir`
}

// metadata reads no file's bytes but still observes the host filesystem:
// whether a path exists, its size and its modification time differ between
// machines and runs.
func metadata() {
	_, _ = os.Stat("x.toml")  // want `detlint\(fileread\): os.Stat `
	_, _ = os.Lstat("x.toml") // want `detlint\(fileread\): os.Lstat `
	r, _ := os.OpenRoot(".")  // want `detlint\(fileread\): os.OpenRoot `
	_ = r
	f, _ := os.OpenInRoot(".", "x.toml") // want `detlint\(fileread\): os.OpenInRoot `
	_ = f
}

func walks() {
	_ = filepath.Walk(".", func(string, os.FileInfo, error) error { return nil })    // want `detlint\(fileread\): path/filepath.Walk `
	_ = filepath.WalkDir(".", func(string, fs.DirEntry, error) error { return nil }) // want `detlint\(fileread\): path/filepath.WalkDir `
	walk := filepath.WalkDir                                                         // want `detlint\(fileread\): path/filepath.WalkDir `
	_ = walk
}
