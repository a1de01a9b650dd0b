package orchestrator

import (
	"sync"

	"github.com/lspkit/lspkit/service/api"
)

// findingKey identifies a finding across checks: its range and message.
type findingKey struct {
	line, character, endLine, endCharacter int
	message                                string
}

func keyOf(d api.Diagnostic) findingKey {
	return findingKey{d.Line, d.Character, d.EndLine, d.EndCharacter, d.Message}
}

// shownFindings remembers, per file, the findings the last complete check
// or report of it showed, for delta answers.
type shownFindings struct {
	mu    sync.Mutex
	files map[string]map[findingKey]bool
}

// update records that file's findings are now current, and returns those
// the previous record did not have (all of them unless delta) with the
// number left out.
func (s *shownFindings) update(file string, current []api.Diagnostic, delta bool) ([]api.Diagnostic, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]map[findingKey]bool{}
	}
	before := s.files[file]
	now := make(map[findingKey]bool, len(current))
	out := make([]api.Diagnostic, 0, len(current))
	for _, d := range current {
		k := keyOf(d)
		now[k] = true
		if !delta || !before[k] {
			out = append(out, d)
		}
	}
	if len(now) == 0 {
		delete(s.files, file)
	} else {
		s.files[file] = now
	}
	return out, len(current) - len(out)
}
