// Package findings is the servers' diagnostics in the service contract's
// shape: one server's converted (Convert: the server's positions made
// the contract's columns, its severities and codes named), several
// servers' merged (Merge: filtered by severity, duplicates dropped,
// ordered), and what each caller was shown of a file (Shown, for delta
// answers).
package findings

import (
	"slices"
	"sort"
	"strings"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
	"github.com/lspkit/lspkit/service/api"
)

// Convert turns server's diagnostics of one file (file: its name in
// answers) into the contract's shape; text is the file's text the
// diagnostics are about, for columns (m: the server's position
// encoding).
func Convert(server string, m client.Mapper, file, text string, diags []protocol.Diagnostic) []api.Diagnostic {
	lines := strings.Split(text, "\n")
	out := make([]api.Diagnostic, 0, len(diags))
	for _, d := range diags {
		l, ch := m.Place(lines, d.Range.Start)
		el, ech := m.Place(lines, d.Range.End)
		out = append(out, api.Diagnostic{
			File: file, Line: l, Character: ch, EndLine: el, EndCharacter: ech,
			Severity: SeverityName(d.Severity),
			Message:  client.MessageText(d),
			Code:     code(d.Code),
			Source:   deref(d.Source),
			Server:   server,
		})
	}
	return out
}

// SeverityName is the contract's name for an LSP severity; a diagnostic
// without one counts as an error.
func SeverityName(s *protocol.DiagnosticSeverity) string {
	if s == nil {
		return "error"
	}
	switch *s {
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "error"
}

func code(c protocol.IntegerOrString) any {
	if n, ok := c.AsInteger(); ok {
		return n
	}
	if s, ok := c.AsString(); ok {
		return s
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Merge keeps the findings of the severities given, drops duplicates
// (file, range and message: two servers saying the same) and sorts by
// file, line and column.
func Merge(in []api.Diagnostic, severities []string) []api.Diagnostic {
	type key struct {
		file         string
		l, c, el, ec int
		message      string
	}
	seen := map[key]bool{}
	out := []api.Diagnostic{}
	for _, d := range in {
		if !slices.Contains(severities, d.Severity) {
			continue
		}
		k := key{d.File, d.Line, d.Character, d.EndLine, d.EndCharacter, d.Message}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Character < b.Character
	})
	return out
}
