package hostconfig

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/lspkit/lspkit/service/skills"
)

// skillDirs is where each host reads a project's Agent Skills (a
// directory per skill, its SKILL.md inside), as the shipped hosts'
// code names them: Claude Code .claude/skills; Codex, Gemini CLI,
// opencode and Kilo the shared .agents/skills (Gemini and opencode read
// their own directories too); Qwen Code .qwen/skills; Droid
// .factory/skills; Copilot CLI .github/skills. Hosts without skills get
// none.
var skillDirs = map[string][]string{
	"claude-code": {".claude", "skills"},
	"codex":       {".agents", "skills"},
	"gemini":      {".agents", "skills"},
	"opencode":    {".agents", "skills"},
	"kilo":        {".agents", "skills"},
	"cursor":      {".agents", "skills"},
	"qwen":        {".qwen", "skills"},
	"droid":       {".factory", "skills"},
	"copilot":     {".github", "skills"},
}

// skillEdits writes lspkit's skills where host reads them, unless
// NoSkills.
func skillEdits(o Options, host string) []edit {
	dir, ok := skillDirs[host]
	if !ok || o.NoSkills {
		return nil
	}
	var out []edit
	for _, s := range skills.All() {
		out = append(out, edit{file: filepath.Join(append(append([]string{o.Root}, dir...), s.Name, "SKILL.md")...), whole: s.Text, skill: s.Name})
	}
	return out
}

// skillFile is a skill's SKILL.md as the file's content: unchanged when it
// is that already; replaced when it is lspkit's skill of that name in
// another version; a file of another skill there is refused without force.
func skillFile(old []byte, exists bool, e edit, force bool) ([]byte, string, error) {
	switch {
	case !exists:
		return []byte(e.whole), "created", nil
	case bytes.Equal(old, []byte(e.whole)):
		return old, "unchanged", nil
	}
	if s, err := skills.Parse(string(old)); force || err == nil && s.Name == e.skill && bytes.Contains(old, []byte("lsp_")) {
		return []byte(e.whole), "replaced", nil
	}
	return nil, "", fmt.Errorf("%w: a skill of yours is there (--force replaces it)", ErrDifferentEntry)
}
