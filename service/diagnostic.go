package service

import (
	"os"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
)

// Diagnostic is the contract's diagnostic: 1-based lines, columns in code
// points of the line, the file relative to the root.
type Diagnostic struct {
	File         string `json:"file"`
	Line         int    `json:"line"`
	Character    int    `json:"character"`
	EndLine      int    `json:"endLine"`
	EndCharacter int    `json:"endCharacter"`
	Severity     string `json:"severity"`
	Message      string `json:"message"`
	Code         any    `json:"code,omitzero"` // string or integer
	Source       string `json:"source,omitempty"`
	Server       string `json:"server"`
}

// FileDiagnostics are diagnostics by file (relative to the root). They
// encode as a JSON object with the files in ascending order.
type FileDiagnostics map[string][]Diagnostic

// MarshalJSONTo writes the object with sorted keys.
func (f FileDiagnostics) MarshalJSONTo(enc *jsontext.Encoder) error {
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	for _, k := range sortedKeys(f) {
		if err := enc.WriteToken(jsontext.String(k)); err != nil {
			return err
		}
		if err := json.MarshalEncode(enc, f[k]); err != nil {
			return err
		}
	}
	return enc.WriteToken(jsontext.EndObject)
}

// severityName is the contract's name for an LSP severity; a diagnostic
// without one counts as an error.
func severityName(s *protocol.DiagnosticSeverity) string {
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

// convert turns a client's diagnostics for uri into the contract's shape.
// Columns need the line text: text when given, else the open document's,
// else the file on disk. Files outside the root are left out.
func (o *Orchestrator) convert(server string, c *client.Client, uri protocol.DocumentURI, diags []protocol.Diagnostic, text string) []Diagnostic {
	path, err := uri.Path()
	if err != nil || !within(o.root, path) {
		return nil
	}
	if len(diags) == 0 {
		return nil
	}
	if text == "" {
		if t, ok := c.DocumentText(uri); ok {
			text = t
		} else if data, err := os.ReadFile(path); err == nil {
			text = string(data)
		}
	}
	lines := strings.Split(text, "\n")
	enc := c.PositionEncoding()
	file := o.rel(path)
	out := make([]Diagnostic, 0, len(diags))
	for _, d := range diags {
		l, ch := convertPosition(lines, d.Range.Start, enc)
		el, ech := convertPosition(lines, d.Range.End, enc)
		out = append(out, Diagnostic{
			File: file, Line: l, Character: ch, EndLine: el, EndCharacter: ech,
			Severity: severityName(d.Severity),
			Message:  client.MessageText(d),
			Code:     code(d.Code),
			Source:   deref(d.Source),
			Server:   server,
		})
	}
	return out
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
