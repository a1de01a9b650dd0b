package features

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// Format previews (or, with p.Apply, applies) the server's formatting of
// a file, or of lines StartLine to EndLine: the unified diff; applied, the
// file is written atomically, the servers re-synced and the file checked.
// The formatting options come from .editorconfig where it has them
// (indent_style, indent_size or tab_width, insert_final_newline,
// trim_trailing_whitespace), else 4 spaces.
func (f *Features) Format(ctx context.Context, p api.FormatParams) (api.RenameResult, error) {
	var out api.RenameResult
	ranged := p.StartLine > 0 || p.EndLine > 0
	if ranged && (p.StartLine < 1 || p.EndLine < p.StartLine) {
		return out, api.InvalidParams("startLine and endLine: give both, 1-based, startLine ≤ endLine")
	}
	method := protocol.DocumentFormattingRequest.Method()
	if ranged {
		method = protocol.DocumentRangeFormattingRequest.Method()
	}
	op, err := f.open(ctx, p.File, method)
	if err != nil {
		return out, err
	}
	defer op.Release()
	out.Note = op.Note
	var rng *protocol.Range
	if ranged {
		if _, _, err := position(op, api.PositionParams{File: p.File, Line: p.EndLine, Character: 1}); err != nil {
			return out, err
		}
		rng = &protocol.Range{Start: protocol.Position{Line: uint32(p.StartLine - 1)}, End: lineEnd(op, p.EndLine)}
	}
	path, _ := op.URI.Path()
	edits, err := op.Client.Format(ctx, op.URI, rng, f.formattingOptions(path))
	if err != nil {
		return out, err
	}
	files, err := f.planEdit(op.Client, protocol.WorkspaceEdit{Changes: map[protocol.DocumentURI][]protocol.TextEdit{op.URI: edits}}, "the formatting")
	if err != nil {
		return out, err
	}
	out.Diff, out.Files, out.Edits = diffOf(files)
	if len(files) == 0 {
		out.Note = api.JoinNotes(out.Note, op.File+" is formatted already")
		return out, nil
	}
	if !p.Apply {
		out.Preview = f.previews.put("the formatting", files)
		return out, nil
	}
	op.Release() // the check after the write takes a hold of its own
	if err := f.write(files, "the formatting"); err != nil {
		return out, err
	}
	out.Applied = true
	out.Diagnostics, out.Note = f.checkTouched(ctx, files, out.Note)
	return out, nil
}

// formattingOptions reads the options for path from the .editorconfig
// files from the workspace root (or the nearest with root = true) down to
// path's directory, nearer ones winning; without any, 4 spaces.
func (f *Features) formattingOptions(path string) protocol.FormattingOptions {
	props := map[string]string{}
	var dirs []string
	for dir := filepath.Dir(path); f.inRoot(dir); dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if dir == f.root || filepath.Dir(dir) == dir {
			break
		}
	}
	// From the top down, each file's matching sections over the last.
	var found []map[string]string
	for _, dir := range dirs {
		sections, root := readEditorConfig(filepath.Join(dir, ".editorconfig"), dir, path)
		found = append(found, sections)
		if root {
			break
		}
	}
	for i := len(found) - 1; i >= 0; i-- {
		for k, v := range found[i] {
			props[k] = v
		}
	}
	opts := protocol.FormattingOptions{TabSize: 4, InsertSpaces: true}
	if props["indent_style"] == "tab" {
		opts.InsertSpaces = false
	}
	size := props["indent_size"]
	if size == "tab" || size == "" {
		size = props["tab_width"]
	}
	if n, err := strconv.Atoi(size); err == nil && n > 0 {
		opts.TabSize = uint32(n)
	}
	switch props["insert_final_newline"] {
	case "true":
		opts.InsertFinalNewline = protocol.Ptr(true)
	case "false":
		opts.InsertFinalNewline = protocol.Ptr(false)
	}
	switch props["trim_trailing_whitespace"] {
	case "true":
		opts.TrimTrailingWhitespace = protocol.Ptr(true)
	case "false":
		opts.TrimTrailingWhitespace = protocol.Ptr(false)
	}
	return opts
}

// readEditorConfig returns the properties an .editorconfig file in dir
// gives path (later sections win), and whether it says root = true.
func readEditorConfig(file, dir, path string) (map[string]string, bool) {
	f, err := os.Open(file)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return nil, false
	}
	rel = filepath.ToSlash(rel)
	props := map[string]string{}
	root, matching, preamble := false, false, true
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
			continue
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			preamble = false
			glob := line[1 : len(line)-1]
			if !strings.Contains(glob, "/") {
				glob = "**/" + glob
			}
			glob = strings.TrimPrefix(glob, "/")
			matching, _ = doublestar.Match(glob, rel)
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.ToLower(strings.TrimSpace(v))
		switch {
		case preamble && k == "root":
			root = v == "true"
		case matching:
			props[k] = v
		}
	}
	return props, root
}
