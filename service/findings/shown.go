package findings

import (
	"strings"
	"sync"

	"github.com/lspkit/lspkit/service/api"
)

// key identifies a finding across checks: its range and message.
type key struct {
	line, character, endLine, endCharacter int
	message                                string
}

func keyOf(d api.Diagnostic) key {
	return key{d.Line, d.Character, d.EndLine, d.EndCharacter, d.Message}
}

// Shown remembers, by a key of a caller and a file, the findings the last
// complete check or report of the file showed the caller, for delta
// answers. Its zero value is ready; it is safe for concurrent use.
type Shown struct {
	mu    sync.Mutex
	files map[string]map[key]bool
}

// Update records that file's findings (file: a key of the caller and
// the file) are now current, and returns those the previous record did
// not have (all of them unless delta) with the number left out.
func (s *Shown) Update(file string, current []api.Diagnostic, delta bool) ([]api.Diagnostic, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]map[key]bool{}
	}
	before := s.files[file]
	now := make(map[key]bool, len(current))
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

// Forget drops the records whose key starts with prefix.
func (s *Shown) Forget(prefix string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.files {
		if strings.HasPrefix(k, prefix) {
			delete(s.files, k)
		}
	}
}

// Len is the number of records kept.
func (s *Shown) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.files)
}
