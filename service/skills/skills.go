// Package skills holds lspkit's Agent Skills: short SKILL.md texts that
// teach a model when to ask lspkit instead of grepping or building, how
// to edit through it, what to do after a burst of edits and how to rename
// safely. lspkit init writes them where each host reads skills; the MCP
// server offers the same texts as prompts; the Agent Plugins package
// carries them.
package skills

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

//go:embed texts/*.md
var texts embed.FS

// A Skill is one SKILL.md: its name, its description (what a host lists
// for the model) and its whole text, front matter included.
type Skill struct {
	Name, Description, Text string
	// Body is the text after the front matter: a prompt's message.
	Body string
}

// All returns lspkit's skills, by name.
func All() []Skill {
	entries, err := fs.ReadDir(texts, "texts")
	if err != nil {
		panic(fmt.Sprintf("skills: %v", err)) // the embedded files are part of the binary
	}
	var out []Skill
	for _, e := range entries {
		data, err := texts.ReadFile(path.Join("texts", e.Name()))
		if err != nil {
			panic(fmt.Sprintf("skills: %v", err))
		}
		s, err := Parse(string(data))
		if err != nil {
			panic(fmt.Sprintf("skills: %s: %v", e.Name(), err))
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Parse reads a SKILL.md: front matter between "---" lines with name and
// description, then the body.
func Parse(text string) (Skill, error) {
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return Skill{}, fmt.Errorf("no front matter")
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return Skill{}, fmt.Errorf("the front matter does not end")
	}
	s := Skill{Text: text, Body: strings.TrimLeft(body, "\n")}
	for line := range strings.Lines(head) {
		key, value, _ := strings.Cut(strings.TrimSpace(line), ":")
		switch key {
		case "name":
			s.Name = strings.TrimSpace(value)
		case "description":
			s.Description = strings.TrimSpace(value)
		}
	}
	if s.Name == "" || s.Description == "" {
		return Skill{}, fmt.Errorf("name and description are required")
	}
	return s, nil
}
