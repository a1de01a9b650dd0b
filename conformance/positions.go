package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
)

// This file holds the documents the client of a session opened, as the
// server should have them, and checks the positions the server sends
// against their text: every position names a line of the document and a
// character within it, in the negotiated encoding.

// document is a document the client opened: its text and version as
// the server should have them.
type document struct {
	text    string
	version int32
	open    bool
}

// document returns the document uri names, noting another spelling of a
// document's URI; nil for a document the client did not open.
func (s *Scorer) document(uri string) *document {
	if d, ok := s.docs[uri]; ok {
		return d
	}
	canon := string(protocol.DocumentURI(uri).Canonical())
	for u, d := range s.docs {
		if string(protocol.DocumentURI(u).Canonical()) == canon {
			s.uriSpellings[uri+" for "+u] = true
			return d
		}
	}
	return nil
}

// positions checks every position in v (objects with a numeric line and
// character) against the text of the document it belongs to: uri, or the
// uri/targetUri of the object holding it.
func (s *Scorer) positions(v jsontext.Value, uri, what string) {
	var tree any
	if json.Unmarshal(v, &tree) != nil {
		return
	}
	s.walkPositions(tree, uri, what, "")
}

func (s *Scorer) walkPositions(v any, uri, what, path string) {
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			s.walkPositions(e, uri, what, path+"["+strconv.Itoa(i)+"]")
		}
	case map[string]any:
		for _, k := range []string{"uri", "targetUri"} {
			if u, ok := x[k].(string); ok {
				uri = u
			}
		}
		line, lok := x["line"].(float64)
		char, cok := x["character"].(float64)
		if lok && cok && len(x) == 2 {
			s.position(uri, int(line), int(char), what+" "+strings.TrimPrefix(path, "."))
			return
		}
		for _, k := range sortedKeys(x) {
			s.walkPositions(x[k], uri, what, path+"."+k)
		}
	}
}

// position checks one position of a document the client has open.
func (s *Scorer) position(uri string, line, char int, where string) {
	d := s.document(uri)
	if d == nil || !d.open {
		return
	}
	s.exercised(CheckPositions)
	lines := strings.Split(d.text, "\n")
	if line < 0 || line >= len(lines) && !(line == len(lines) && char == 0) {
		s.fail(CheckPositions, fmt.Sprintf("%s: line %d of a document of %d lines", where, line, len(lines)))
		return
	}
	if line == len(lines) {
		return
	}
	text := strings.TrimSuffix(lines[line], "\r")
	m := client.Mapper{Encoding: s.encoding}
	width := m.Column(text, utf8.RuneCountInString(text))
	if uint32(char) > width {
		s.fail(CheckPositions, fmt.Sprintf("%s: character %d past the end of line %d (%d %s units: %q)", where, char, line, width, s.encoding, trimText(text)))
		return
	}
	if _, ok := offsetOf(d.text, protocol.Position{Line: uint32(line), Character: uint32(char)}, m); !ok {
		s.fail(CheckPositions, fmt.Sprintf("%s: character %d splits a character of line %d in %s (%q)", where, char, line, s.encoding, trimText(text)))
	}
}

// offsetOf is the byte offset of a position in text; ok is false when the
// position falls inside a character's encoding.
func offsetOf(text string, p protocol.Position, m client.Mapper) (int, bool) {
	off := 0
	for range p.Line {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text), false
		}
		off += i + 1
	}
	line := text[off:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	units := uint32(0)
	for i, r := range line {
		if units == p.Character {
			return off + i, true
		}
		units += m.Column(string(r), 1)
		if units > p.Character {
			return off + i, false
		}
	}
	return off + len(line), units == p.Character || p.Character > units
}
