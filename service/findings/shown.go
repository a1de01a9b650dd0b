package findings

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/textedit"
)

// Shown remembers, by a key of a caller and a file, the findings the last
// complete check or report of the file showed the caller, and the text
// they were for, for delta answers. Its zero value is ready; it is safe
// for concurrent use.
type Shown struct {
	mu    sync.Mutex
	files map[string]record
}

// record is what a caller was last shown of a file.
type record struct {
	findings []api.Diagnostic
	text     *string // the text they were for; nil: not known
}

// Update records that file's findings (file: a key of the caller and
// the file) for text (nil: not known) are now current, and returns those
// the previous record did not have (all of them unless delta) with the
// number left out. A finding is the same as one shown before when its
// server, code and message are, on the line the change from the earlier
// text to this one moved it to (Compare): lines an edit moved do not
// make old findings new.
func (s *Shown) Update(file string, text *string, current []api.Diagnostic, delta bool) ([]api.Diagnostic, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.files == nil {
		s.files = map[string]record{}
	}
	before, had := s.files[file]
	if len(current) == 0 {
		delete(s.files, file)
	} else {
		s.files[file] = record{findings: slices.Clone(current), text: text}
	}
	if !delta || !had {
		return current, 0
	}
	var moves []int
	if before.text != nil && text != nil && *before.text != *text {
		moves = textedit.LineMap(*before.text, *text)
	}
	out, _ := Compare(before.findings, current, func(string) []int { return moves })
	// Compare sorts; the order given is kept.
	return inOrder(current, out), len(current) - len(out)
}

// inOrder returns the findings of current that are in subset, in
// current's order.
func inOrder(current, subset []api.Diagnostic) []api.Diagnostic {
	left := map[string]int{}
	k := func(d api.Diagnostic) string {
		return fmt.Sprint(d.File, "\x00", d.Server, "\x00", d.Code, "\x00", d.Message, "\x00", d.Line, "\x00", d.Character)
	}
	for _, d := range subset {
		left[k(d)]++
	}
	out := make([]api.Diagnostic, 0, len(subset))
	for _, d := range current {
		if left[k(d)] > 0 {
			left[k(d)]--
			out = append(out, d)
		}
	}
	return out
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
