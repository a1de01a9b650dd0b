package features

import (
	"strconv"
	"sync"

	"github.com/lspkit/lspkit/service/api"
)

// maxPreviews is how many previews are kept for lsp/applyEdits, the
// oldest dropped first.
const maxPreviews = 64

// A preview is the files an edit tool computed and did not write (a
// rename, a code action, a fix-all or a formatting without apply), kept so
// that lsp/applyEdits can write exactly them, checked: each file's new
// text, with the text it was made from as its base.
type preview struct {
	what  string
	files []fileEdit
}

// previewStore keeps the last maxPreviews previews by id.
type previewStore struct {
	mu    sync.Mutex
	next  uint64
	byID  map[string]preview
	order []string
}

// put keeps files as a preview and returns its id ("" for no files).
func (s *previewStore) put(what string, files []fileEdit) string {
	if len(files) == 0 {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID == nil {
		s.byID = map[string]preview{}
	}
	s.next++
	id := "p" + strconv.FormatUint(s.next, 10)
	s.byID[id] = preview{what: what, files: files}
	s.order = append(s.order, id)
	if len(s.order) > maxPreviews {
		delete(s.byID, s.order[0])
		s.order = s.order[1:]
	}
	return id
}

// edits returns preview id's files as lsp/applyEdits' edits: each file's
// whole new text, based on the text it was made from.
func (s *previewStore) edits(id string) ([]api.FileEdit, error) {
	s.mu.Lock()
	p, ok := s.byID[id]
	s.mu.Unlock()
	if !ok {
		return nil, api.InvalidParams("no preview %q: previews are kept for the last %d edits shown (rename, code action, fix-all, formatting without apply) of this daemon; make the edit's preview again", id, maxPreviews)
	}
	out := make([]api.FileEdit, 0, len(p.files))
	for _, f := range p.files {
		text := f.new
		e := api.FileEdit{File: f.path, Text: &text}
		if !f.created {
			e.Base = hashOf(f.old)
		}
		out = append(out, e)
	}
	return out, nil
}
