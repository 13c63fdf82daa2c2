package tui

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/detsim/detsim/batch"
	"github.com/detsim/detsim/bundle"
	"github.com/detsim/detsim/hosts"
	"github.com/detsim/detsim/internal/outfile"
	"github.com/detsim/detsim/render"
	"github.com/detsim/detsim/scenarios"
	"github.com/detsim/detsim/tui/screen"
)

// The picture key (issue 13 item 4): the run the stepper shows, as the
// web page `detsim render` writes, with the current step marked. The
// stepper holds no bundle, so the key runs the same scenario and seed
// headless into one (batch.Run: the run is deterministic, so it is this
// run), renders it with the mark, and writes the page beside it. All of
// it happens in a command, off the Update loop and apart from the
// session: the stepper stays usable while it works.

// pictureMsg reports a finished picture.
type pictureMsg struct {
	path string
	step int64
	err  error
}

// picturePaths are bundles/<name>-<seed> and the page beside it.
func picturePaths(root string, sc *scenarios.Scenario) (dir, page string, err error) {
	dir, err = bundle.DefaultDir(root, sc.Name, sc.Seed)
	return dir, dir + ".html", err
}

// picture starts writing the picture of the current run at the current
// step.
func (m Model) picture() (tea.Model, tea.Cmd) {
	if m.picturing {
		m.setError("a picture is being written already")
		return m, nil
	}
	if m.scen == nil || m.frame() == nil {
		m.setError("no run to draw")
		return m, nil
	}
	root := m.pictureRoot
	if root == "" {
		root = "bundles"
	}
	dir, page, err := picturePaths(root, m.scen)
	if err != nil {
		m.setError("picture: " + err.Error())
		return m, nil
	}
	m.picturing = true
	m.status, m.isError = "picture: running "+m.scen.Name+" seed "+strconv.FormatUint(m.scen.Seed, 10)+" into "+dir+", then drawing step "+screen.FmtInt(m.frame().Index())+"…", false
	return m, writePicture(m.scen, m.reg, m.version, dir, page, m.frame().Now(), m.frame().Index())
}

// writePicture is the command: bundle, page, mark.
func writePicture(sc *scenarios.Scenario, reg *hosts.Registry, version, dir, page string, now, step int64) tea.Cmd {
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = pictureMsg{err: fmt.Errorf("internal error: %v", r)}
			}
		}()
		return pictureMsg{path: page, step: step, err: picture(sc, reg, version, dir, page, now, step)}
	}
}

func picture(sc *scenarios.Scenario, reg *hosts.Registry, version, dir, page string, now, step int64) error {
	// The page may replace only a page this key (or detsim render) wrote;
	// anything else at its path is refused before the run, not after.
	force, err := render.IsPage(page)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := outfile.Check(page, force); err != nil {
		return refusal(page, err)
	}
	// A bundle of another scenario with this name and seed (a shrunk
	// one keeps its original's name) is not this key's to replace.
	if err := bundle.CheckDefaultDir(dir, sc.Path, fmt.Sprintf("%x", sc.SourceSHA256)); err != nil {
		return fmt.Errorf("not written: %v (move it away and press the key again)", err)
	}
	// batch.Run replaces dir only if it is a detsim bundle.
	if _, err := batch.Run(sc, reg, batch.Config{Out: dir, Version: version}); err != nil {
		var oe *batch.OutError
		if errors.As(err, &oe) {
			return fmt.Errorf("not written: %v", err)
		}
		return err
	}
	var b bytes.Buffer
	if _, err := render.Write(&b, dir, render.Options{Mark: true, MarkNs: now, MarkStep: step}); err != nil {
		return err
	}
	// Asked again: the run took a while, and whatever stands at the path
	// now is what the write may replace.
	if force, err = render.IsPage(page); err != nil {
		return err
	}
	if err := outfile.Write(page, b.Bytes(), force); err != nil {
		return refusal(page, err)
	}
	return nil
}

// refusal says why an existing file was left alone.
func refusal(page string, err error) error {
	if errors.Is(err, outfile.ErrExists) {
		return fmt.Errorf("not written: %s exists and is not a page detsim wrote; it is left alone (move it away and press the key again)", page)
	}
	return fmt.Errorf("not written: %v", err)
}

// applyPicture shows where the picture went, or why it did not.
func (m Model) applyPicture(msg pictureMsg) (tea.Model, tea.Cmd) {
	m.picturing = false
	if msg.err != nil {
		m.setError("picture: " + msg.err.Error())
		return m, nil
	}
	m.status, m.isError = "picture: "+msg.path+" (step "+screen.FmtInt(msg.step)+" marked)", false
	return m, nil
}
