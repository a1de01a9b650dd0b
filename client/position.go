package client

import (
	"unicode/utf8"

	"github.com/lspkit/lspkit/protocol"
)

// PositionEncoding returns the encoding the server counts columns in: what
// it chose from the client's offer (utf-8, utf-32, utf-16), utf-16 if it
// chose nothing.
func (c *Client) PositionEncoding() protocol.PositionEncodingKind {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.encodingLocked()
}

func (c *Client) encodingLocked() protocol.PositionEncodingKind {
	if e := c.capabilities.PositionEncoding; e != nil && *e != "" {
		return *e
	}
	return protocol.PositionEncodingKindUTF16
}

// units is how many columns r takes in encoding enc.
func units(r rune, enc protocol.PositionEncodingKind) uint32 {
	switch enc {
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

// position returns the position of byte offset off in text, with the
// character counted in encoding enc.
func position(text string, off int, enc protocol.PositionEncodingKind) protocol.Position {
	var pos protocol.Position
	for _, r := range text[:off] {
		if r == '\n' {
			pos.Line++
			pos.Character = 0
			continue
		}
		pos.Character += units(r, enc)
	}
	return pos
}

// CodePointColumn converts a column of line counted in encoding enc into a
// count of code points (what people and the lspkit service call columns). A
// column past the end of the line, or inside a character, is clamped.
func CodePointColumn(line string, character uint32, enc protocol.PositionEncodingKind) int {
	var used uint32
	n := 0
	for _, r := range line {
		if used >= character {
			break
		}
		used += units(r, enc)
		n++
	}
	return n
}

// EncodedColumn converts a code-point column of line into a column counted
// in encoding enc.
func EncodedColumn(line string, codePoints int, enc protocol.PositionEncodingKind) uint32 {
	var col uint32
	n := 0
	for _, r := range line {
		if n >= codePoints {
			break
		}
		col += units(r, enc)
		n++
	}
	return col
}
