package client

import (
	"strings"
	"unicode/utf8"

	"github.com/lspkit/lspkit/protocol"
)

// A Mapper converts between a server's positions, whose columns count in
// its position encoding (UTF-8 bytes, UTF-16 code units or code points), and
// code-point columns, what people and the lspkit service call columns. All
// column conversion in lspkit goes through it.
type Mapper struct {
	Encoding protocol.PositionEncodingKind // utf-16 when empty, the LSP default
}

// units is how many columns r takes.
func (m Mapper) units(r rune) uint32 {
	switch m.Encoding {
	case protocol.PositionEncodingKindUTF8:
		return uint32(utf8.RuneLen(r))
	case protocol.PositionEncodingKindUTF32:
		return 1
	}
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// Position returns the server position of byte offset off in text.
func (m Mapper) Position(text string, off int) protocol.Position {
	var pos protocol.Position
	for _, r := range text[:off] {
		if r == '\n' {
			pos.Line++
			pos.Character = 0
			continue
		}
		pos.Character += m.units(r)
	}
	return pos
}

// CodePoints converts a server column of line into a count of code points.
// A column past the end of the line, or inside a character, is clamped.
func (m Mapper) CodePoints(line string, character uint32) int {
	var used uint32
	n := 0
	for _, r := range line {
		if used >= character {
			break
		}
		used += m.units(r)
		n++
	}
	return n
}

// Column converts a code-point column of line into a server column.
func (m Mapper) Column(line string, codePoints int) uint32 {
	var col uint32
	n := 0
	for _, r := range line {
		if n >= codePoints {
			break
		}
		col += m.units(r)
		n++
	}
	return col
}

// Offset returns the byte offset in text of the server position pos: a
// line past the end is the text's end, a column past its line's end (or
// inside a character) the line's end (or that character's start).
func (m Mapper) Offset(text string, pos protocol.Position) int {
	off := 0
	for line := uint32(0); line < pos.Line; line++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	var used uint32
	for i, r := range text[off:] {
		if r == '\n' || used >= pos.Character {
			return off + i
		}
		used += m.units(r)
		if used > pos.Character {
			return off + i
		}
	}
	return len(text)
}

// Place turns a position in a document whose lines are given into the
// contract's 1-based line and code-point column.
func (m Mapper) Place(lines []string, p protocol.Position) (line, char int) {
	text := ""
	if int(p.Line) < len(lines) {
		text = lines[p.Line]
	}
	return int(p.Line) + 1, m.CodePoints(text, p.Character) + 1
}
