package lsptest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/protocol"
)

// symbolsOf reads the symbols of a fake document (see Behavior.Symbols):
// classes with their methods as children, and functions.
func symbolsOf(text string) []protocol.DocumentSymbol {
	var out []protocol.DocumentSymbol
	class := -1
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		indent := len(line) - len(trimmed)
		kw, name, ok := strings.Cut(trimmed, " ")
		if !ok || (kw != "class" && kw != "def") || name == "" {
			continue
		}
		name = strings.Fields(name)[0]
		at := uint32(indent + len(kw) + 1)
		sym := protocol.DocumentSymbol{Name: name, Kind: protocol.SymbolKindFunction,
			Range:          protocol.Range{Start: protocol.Position{Line: uint32(i)}, End: protocol.Position{Line: uint32(i), Character: uint32(len(line))}},
			SelectionRange: protocol.Range{Start: protocol.Position{Line: uint32(i), Character: at}, End: protocol.Position{Line: uint32(i), Character: at + uint32(len(name))}}}
		switch {
		case kw == "class":
			sym.Kind = protocol.SymbolKindClass
			out = append(out, sym)
			class = len(out) - 1
		case indent > 0 && class >= 0:
			sym.Kind = protocol.SymbolKindMethod
			out[class].Children = append(out[class].Children, sym)
		default:
			class = -1
			out = append(out, sym)
		}
	}
	return out
}

// TextDocumentDocumentSymbol answers with the document's symbols.
func (s *server) TextDocumentDocumentSymbol(_ context.Context, p *protocol.DocumentSymbolParams) (protocol.Nullable[protocol.SymbolInformationSliceOrDocumentSymbolSlice], error) {
	text, _ := s.get(p.TextDocument.URI)
	return protocol.NewNullable(protocol.NewSymbolInformationSliceOrDocumentSymbolSliceDocumentSymbolSlice(symbolsOf(text))), nil
}

// WorkspaceSymbol answers with the symbols of the root's .fk files (every
// workspace folder's, with Behavior.Folders) whose
// name contains the query (case aside), methods with their class as
// container.
func (s *server) WorkspaceSymbol(_ context.Context, p *protocol.WorkspaceSymbolParams) (protocol.Nullable[protocol.SymbolInformationSliceOrWorkspaceSymbolSlice], error) {
	s.mu.Lock()
	roots := []protocol.DocumentURI{s.root}
	if len(s.dirs) > 0 {
		roots = slices.Clone(s.dirs) // every workspace folder's files
	}
	s.mu.Unlock()
	var files []string
	for _, root := range roots {
		dir, err := root.Path()
		if err != nil {
			return protocol.Nullable[protocol.SymbolInformationSliceOrWorkspaceSymbolSlice]{}, err
		}
		fs, _ := filepath.Glob(filepath.Join(dir, "*.fk"))
		files = append(files, fs...)
	}
	var out []protocol.SymbolInformation
	q := strings.ToLower(p.Query)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		uri, err := protocol.FileURI(f)
		if err != nil {
			continue
		}
		add := func(ds protocol.DocumentSymbol, container *string) {
			if strings.Contains(strings.ToLower(ds.Name), q) {
				out = append(out, protocol.SymbolInformation{Name: ds.Name, Kind: ds.Kind, ContainerName: container, Location: protocol.Location{URI: uri, Range: ds.SelectionRange}})
			}
		}
		for _, ds := range symbolsOf(string(data)) {
			add(ds, nil)
			for _, c := range ds.Children {
				add(c, &ds.Name)
			}
		}
	}
	return protocol.NewNullable(protocol.NewSymbolInformationSliceOrWorkspaceSymbolSliceSymbolInformationSlice(out)), nil
}
