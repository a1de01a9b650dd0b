package skills

import (
	"regexp"
	"strings"
	"testing"
)

// TestSkills: each skill is a valid Agent Skill — a lowercase name of
// letters, digits and hyphens, its description at most 100 characters and
// a sentence, a body — and there are three to five of them.
func TestSkills(t *testing.T) {
	all := All()
	if len(all) < 3 || len(all) > 5 {
		t.Fatalf("%d skills, want 3 to 5", len(all))
	}
	name := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, s := range all {
		if !name.MatchString(s.Name) || len(s.Name) > 64 {
			t.Errorf("name %q", s.Name)
		}
		if len(s.Description) > 100 || !strings.HasSuffix(s.Description, ".") {
			t.Errorf("%s: description %q (%d characters; at most 100, a sentence)", s.Name, s.Description, len(s.Description))
		}
		if !strings.HasPrefix(s.Body, "# ") || len(s.Body) > 2000 {
			t.Errorf("%s: body %d characters, want a heading and at most 2,000", s.Name, len(s.Body))
		}
	}
	if _, err := Parse("no front matter"); err == nil {
		t.Error("Parse of a text without front matter: no error")
	}
}
