package transport

import (
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// ID is a JSON-RPC request id: an integer or a string. The zero ID is no
// id at all (a notification's), distinct from IntID(0). IDs of the two
// directions of a connection are separate spaces: an incoming request's id
// never matches a call this side made.
type ID struct {
	num  int64
	str  string
	kind idKind
}

type idKind uint8

const (
	idNone idKind = iota
	idNumber
	idString
)

// IntID returns an integer id.
func IntID(n int64) ID { return ID{num: n, kind: idNumber} }

// StringID returns a string id.
func StringID(s string) ID { return ID{str: s, kind: idString} }

// IsValid reports whether the id is an integer or a string, not the zero ID.
func (id ID) IsValid() bool { return id.kind != idNone }

// IsString reports whether the id is a string.
func (id ID) IsString() bool { return id.kind == idString }

// Int returns the integer id and true, or false for a string or no id.
func (id ID) Int() (int64, bool) { return id.num, id.kind == idNumber }

// Str returns the string id and true, or false for an integer or no id.
func (id ID) Str() (string, bool) { return id.str, id.kind == idString }

// String returns the id as JSON: a number, a quoted string, or null for
// the zero ID.
func (id ID) String() string { return string(id.appendJSON(nil)) }

// appendJSON appends the id as JSON; invalid UTF-8 in a string id is
// replaced, so the output is always valid JSON.
func (id ID) appendJSON(b []byte) []byte {
	switch id.kind {
	case idNumber:
		return strconv.AppendInt(b, id.num, 10)
	case idString:
		return appendString(b, id.str)
	}
	return append(b, "null"...)
}

// appendString appends s as a JSON string, replacing invalid UTF-8 with
// U+FFFD: what is written is always valid JSON.
func appendString(b []byte, s string) []byte {
	out, err := jsontext.AppendQuote(b, s)
	if err != nil {
		out, _ = jsontext.AppendQuote(b, strings.ToValidUTF8(s, "\uFFFD"))
	}
	return out
}

// envelopeID returns the id an Envelope read, or the zero ID.
func envelopeID(env *Envelope) ID {
	switch env.IDKind {
	case IDNumber:
		return IntID(env.IDNum)
	case IDString:
		return StringID(string(env.IDStr))
	}
	return ID{}
}
