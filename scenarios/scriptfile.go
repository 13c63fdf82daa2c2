package scenarios

import (
	"maps"
	"path"
	"path/filepath"
	"slices"

	"github.com/BurntSushi/toml"
)

// ScriptFileKey is the kind_config key naming a TOML file whose top-level
// keys the loader merges into that kind_config (the provider kind's
// script, docs/agents.md). The path is relative to the file that
// declares it and is read through the same readFile as extends (so
// through safefile on disk, and inside the library when embedded). The
// merged scenario holds the file's keys inline and no script_file, so a
// bundle's scenario.toml alone still reproduces the run.
const ScriptFileKey = "script_file"

// inlineScriptFiles replaces each peer's kind_config.script_file in one
// file's tree by the keys of the file it names. It reports false after
// recording an error.
func (p *parser) inlineScriptFiles(r report, name string, tree map[string]any) bool {
	peers, _ := tree["peers"].([]any)
	ok := true
	for i, pe := range peers {
		t, _ := pe.(map[string]any)
		kc, _ := t["kind_config"].(map[string]any)
		v, present := kc[ScriptFileKey]
		if !present {
			continue
		}
		id, _ := t["id"].(string)
		field := entryLabel("peers", id, i) + ".kind_config." + ScriptFileKey
		file, isStr := v.(string)
		if !isStr || file == "" {
			r.add(field, "must be a non-empty file path, got %s", describe(v))
			ok = false
			continue
		}
		target := file
		if !path.IsAbs(target) && !filepath.IsAbs(target) {
			target = path.Join(path.Dir(name), target)
		}
		if p.readFile == nil {
			r.add(field, "cannot read %q: files are not available here", target)
			ok = false
			continue
		}
		data, err := p.readFile(target)
		if err != nil {
			r.add(field, "cannot read %q: %v", target, err)
			ok = false
			continue
		}
		if len(data) > MaxFileBytes {
			r.add(field, "%q is %d bytes; a script may be at most %d", target, len(data), MaxFileBytes)
			ok = false
			continue
		}
		if err := CheckNesting(data); err != nil {
			r.add(field, "%q: %v", target, err)
			ok = false
			continue
		}
		var raw map[string]any
		if _, err := toml.Decode(string(data), &raw); err != nil {
			r.add(field, "%q: %s", target, syntaxMsg(err))
			ok = false
			continue
		}
		keys := normalize(raw).(map[string]any)
		delete(kc, ScriptFileKey)
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			if _, dup := kc[k]; dup {
				r.add(field, "%q sets %s, which kind_config sets too", target, k)
				ok = false
				continue
			}
			kc[k] = keys[k]
		}
	}
	return ok
}
