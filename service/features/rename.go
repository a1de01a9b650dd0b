package features

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sourcegraph/conc"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/internal/atomicfile"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/textedit"
)

// Rename asks the server for the edit that renames the symbol at a
// position and returns it as a unified diff with its counts. Nothing is
// written unless p.Apply; then every file is written atomically (all are
// prepared before any is replaced), every server is re-synced and the
// touched files are checked: their diagnostics are in the answer.
func (f *Features) Rename(ctx context.Context, p api.RenameParams) (api.RenameResult, error) {
	var out api.RenameResult
	if strings.TrimSpace(p.NewName) == "" {
		return out, api.InvalidParams("newName is required")
	}
	op, pos, note, err := f.at(ctx, p.PositionParams, protocol.RenameRequest.Method())
	if err != nil {
		return out, err
	}
	defer op.Release()
	out.Note = note
	edit, ok, err := op.Client.Rename(ctx, op.URI, pos, p.NewName)
	if err != nil {
		return out, err
	}
	files, err := f.planEdit(op.Client, edit, "the rename")
	if err != nil {
		return out, err
	}
	if !ok || len(files) == 0 {
		return out, api.InvalidParams("%s has nothing to rename at %s:%d:%d", op.Client.Name(), op.File, p.Line, int(pos.Character)+1)
	}
	var diff strings.Builder
	for _, f := range files {
		out.Edits += f.edits
		diff.WriteString(textedit.Unified("a/"+f.rel, "b/"+f.rel, f.old, f.new))
	}
	out.Files, out.Diff = len(files), diff.String()
	if !p.Apply {
		out.Preview = f.previews.put("the rename", files)
		return out, nil
	}
	op.Release() // the check of the written files takes holds of its own
	if err := f.write(files, "the rename"); err != nil {
		return out, err
	}
	out.Applied = true
	out.Diagnostics, out.Note = f.checkTouched(ctx, files, out.Note)
	return out, nil
}

// fileEdit is what a workspace edit does to one file.
type fileEdit struct {
	path, rel string
	old, new  string
	edits     int
	created   bool // the file does not exist: the edit makes it
}

// planEdit turns a server's workspace edit into new file texts, each from
// the text the server has (the open document, else the file on disk). It
// refuses what it cannot apply faithfully: file creations, renames and
// deletions, edits for a version the server no longer has, edits outside
// the root, and overlapping edits.
func (f *Features) planEdit(c *client.Client, edit protocol.WorkspaceEdit, what string) ([]fileEdit, error) {
	order, byURI, err := f.editsOf(c, edit, what)
	if err != nil {
		return nil, err
	}
	var files []fileEdit
	for _, uri := range order {
		f, err := f.byteEdits(c, uri, byURI[uri], what)
		if err != nil {
			return nil, err
		}
		text, err := textedit.Apply(f.old, f.edits)
		if err != nil {
			return nil, fmt.Errorf("%s: the edits of %s by %s: %w", c.Name(), f.rel, what, err)
		}
		if text != f.old {
			files = append(files, fileEdit{path: f.path, rel: f.rel, old: f.old, new: text, edits: len(f.edits)})
		}
	}
	return files, nil
}

// editsOf lists a workspace edit's text edits by document, in the order
// the edit names them, refusing what lspkit does not apply (see planEdit).
func (f *Features) editsOf(c *client.Client, edit protocol.WorkspaceEdit, what string) ([]protocol.DocumentURI, map[protocol.DocumentURI][]protocol.TextEdit, error) {
	byURI := map[protocol.DocumentURI][]protocol.TextEdit{}
	var order []protocol.DocumentURI
	add := func(uri protocol.DocumentURI, edits ...protocol.TextEdit) {
		if _, ok := byURI[uri]; !ok {
			order = append(order, uri)
		}
		byURI[uri] = append(byURI[uri], edits...)
	}
	for _, ch := range edit.DocumentChanges {
		tde, ok := ch.AsTextDocumentEdit()
		if !ok {
			return nil, nil, fmt.Errorf("%s: %s also creates, renames or deletes files, which lspkit does not apply", c.Name(), what)
		}
		if v, ok := tde.TextDocument.Version.Get(); ok {
			if _, have, open := c.DocumentVersion(tde.TextDocument.URI); open && have != v {
				return nil, nil, fmt.Errorf("%s: %s is for version %d of %s, which has changed since (version %d); try again", c.Name(), what, v, tde.TextDocument.URI, have)
			}
		}
		for _, e := range tde.Edits {
			if te, ok := e.AsTextEdit(); ok {
				add(tde.TextDocument.URI, te)
			} else if ae, ok := e.AsAnnotatedTextEdit(); ok {
				add(tde.TextDocument.URI, protocol.TextEdit{Range: ae.Range, NewText: ae.NewText})
			} else {
				return nil, nil, fmt.Errorf("%s: %s has a snippet edit, which lspkit does not apply", c.Name(), what)
			}
		}
	}
	if len(edit.DocumentChanges) == 0 {
		for _, uri := range slices.Sorted(maps.Keys(edit.Changes)) {
			add(uri, edit.Changes[uri]...)
		}
	}
	return order, byURI, nil
}

// pendingFile is one file's edits as byte ranges of the text they were
// made for.
type pendingFile struct {
	path, rel, old string
	edits          []textedit.Edit
}

// byteEdits turns the text edits of uri into byte ranges of the text the
// server has (the open document, else the file on disk).
func (f *Features) byteEdits(c *client.Client, uri protocol.DocumentURI, tes []protocol.TextEdit, what string) (pendingFile, error) {
	path, err := uri.Path()
	if err != nil {
		return pendingFile{}, fmt.Errorf("%s: %s edits %s: %w", c.Name(), what, uri, err)
	}
	if !f.inRoot(path) {
		return pendingFile{}, fmt.Errorf("%s: %s edits %s, outside the workspace root %s; not applied", c.Name(), what, path, f.root)
	}
	old, err := f.baseText(c, uri, what)
	if err != nil {
		return pendingFile{}, err
	}
	m := c.Mapper()
	starts := lineStarts(old)
	edits := make([]textedit.Edit, 0, len(tes))
	for _, te := range tes {
		edits = append(edits, textedit.Edit{Start: byteOffset(old, starts, te.Range.Start, m), End: byteOffset(old, starts, te.Range.End, m), New: te.NewText})
	}
	return pendingFile{path: path, rel: f.core.Rel(path), old: old, edits: edits}, nil
}

// baseText is the text a server's edit of uri is made for: the open
// document's, else the file's on disk.
func (f *Features) baseText(c *client.Client, uri protocol.DocumentURI, what string) (string, error) {
	if text, open := c.DocumentText(uri); open {
		return text, nil
	}
	path, err := uri.Path()
	if err != nil {
		return "", fmt.Errorf("%s: %s edits %s: %w", c.Name(), what, uri, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: read %s: %w", what, f.core.Rel(path), err)
	}
	return string(data), nil
}

// lineStarts returns the byte offset of each line of text.
func lineStarts(text string) []int {
	starts := []int{0}
	for i := range len(text) {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// byteOffset converts a server position into a byte offset of text; a
// position past the end of its line or of the text is clamped to it, as
// the LSP says.
func byteOffset(text string, starts []int, p protocol.Position, m client.Mapper) int {
	if int(p.Line) >= len(starts) {
		return len(text)
	}
	start := starts[p.Line]
	end := len(text)
	if int(p.Line)+1 < len(starts) {
		end = starts[p.Line+1] - 1
	}
	line := text[start:end]
	n := m.CodePoints(line, p.Character)
	off := 0
	for range n {
		_, size := utf8.DecodeRuneInString(line[off:])
		off += size
	}
	return start + off
}

// write replaces each file's content with its new text atomically (see
// replaceFiles).
func (f *Features) write(files []fileEdit, what string) error {
	return replaceFiles(files, what, nil)
}

// errStale is replaceFiles' refusal: a file on disk is not the text the
// edit was made from.
var errStale = errors.New("changed on disk")

// replaceFiles replaces each file's content with its new text as one step:
// every new content is first written to a temporary file beside its file
// (with its mode), and only when all are written are they put in place,
// each only if the file still holds the text the edit was made from
// (atomicfile.ReplaceIf; a new file only if none has appeared). A file
// whose content on disk is not that text (unsaved text from a check, or
// another program's write, before or during the replacement) stops it
// (errStale): the files already replaced are put back, so nothing is
// written. replace is atomicfile.ReplaceIf but in tests.
func replaceFiles(files []fileEdit, what string, replace func(tmp, path string, old []byte) error) error {
	if replace == nil {
		replace = atomicfile.ReplaceIf
	}
	temps := make([]string, 0, len(files))
	defer func() {
		for _, t := range temps {
			if t != "" {
				os.Remove(t)
			}
		}
	}()
	stale := func(rel string) error {
		return fmt.Errorf("%s: %s on disk is not the text the edit was made from (it was checked with text of its own, or changed since); check it from disk and try again; nothing was written: %w", what, rel, errStale)
	}
	modes := make([]os.FileMode, len(files))
	for i, f := range files {
		modes[i] = 0o644
		if f.created {
			if _, err := os.Lstat(f.path); err == nil {
				return stale(f.rel)
			}
			if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
				return fmt.Errorf("%s: %w; nothing was written", what, err)
			}
		} else {
			data, err := os.ReadFile(f.path)
			if err != nil {
				return fmt.Errorf("%s: read %s: %w; nothing was written", what, f.rel, err)
			}
			if string(data) != f.old {
				return stale(f.rel)
			}
			info, err := os.Stat(f.path)
			if err != nil {
				return fmt.Errorf("%s: %w; nothing was written", what, err)
			}
			modes[i] = info.Mode().Perm()
		}
		tmp, err := atomicfile.WriteTemp(f.path, []byte(f.new), modes[i])
		if tmp != "" {
			temps = append(temps, tmp)
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %w; nothing was written", what, f.rel, err)
		}
	}
	for i, f := range files {
		var old []byte
		if !f.created {
			old = []byte(f.old)
		}
		err := replace(temps[i], f.path, old)
		temps[i] = "" // replaced, or removed by replace
		if err == nil {
			continue
		}
		// Put back what was replaced, each again in one step, unless
		// another program wrote it since.
		var lost []string
		for j, g := range files[:i] {
			var werr error
			if g.created {
				werr = os.Remove(g.path)
			} else {
				var tmp string
				tmp, werr = atomicfile.WriteTemp(g.path, []byte(g.old), modes[j])
				if werr == nil {
					werr = replace(tmp, g.path, []byte(g.new))
				} else if tmp != "" {
					os.Remove(tmp)
				}
			}
			if werr != nil {
				lost = append(lost, fmt.Sprintf("%s (%v)", g.rel, werr))
			}
		}
		if len(lost) > 0 {
			return fmt.Errorf("%s: replace %s: %w; and putting back the files already replaced failed: %s hold the new text", what, f.rel, err, strings.Join(lost, ", "))
		}
		if errors.Is(err, atomicfile.ErrChanged) {
			return fmt.Errorf("%s: %s changed on disk while it was being written (another program wrote it); nothing was written (the files already replaced were put back): %w", what, f.rel, errStale)
		}
		return fmt.Errorf("%s: replace %s: %w; nothing was written (the files already replaced were put back)", what, f.rel, err)
	}
	return nil
}

// checkConcurrency bounds the files checked at once after a rename.
const checkConcurrency = 8

// checkTouched checks every written file from disk (which re-syncs every
// server that has it open, and the others see the write through their
// file watchers) and returns their diagnostics, with a note naming the
// files not fully checked.
func (f *Features) checkTouched(ctx context.Context, files []fileEdit, note string) (api.FileDiagnostics, string) {
	diags := api.FileDiagnostics{}
	// Every server first gets the new text of each written file it has
	// open (a header before the files that include it are checked): the
	// barrier has the watcher pass the writes on, and each refresh re-sends
	// them.
	f.core.Refresh(ctx)
	results := make([]api.CheckResult, len(files))
	var wg conc.WaitGroup
	slots := make(chan struct{}, checkConcurrency)
	for i, file := range files {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			res, err := f.core.Check(ctx, api.CheckParams{FilePath: file.path})
			if err != nil {
				res.Reason = err.Error()
			}
			results[i] = res
		})
	}
	if panicked := wg.WaitAndRecover(); panicked != nil {
		f.log.Error("rename: check: panic", "panic", panicked.String())
		note = api.JoinNotes(note, fmt.Sprintf("checking the changed files failed: internal error: %v", panicked.Value))
	}
	for i, res := range results {
		if len(res.Diagnostics) > 0 {
			diags[files[i].rel] = res.Diagnostics
		}
		if !res.Checked {
			note = api.JoinNotes(note, fmt.Sprintf("%s was not fully checked after the rename: %s", files[i].rel, res.Reason))
		}
	}
	return diags, note
}
