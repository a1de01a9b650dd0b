package protocol

import (
	"bytes"

	"github.com/go-json-experiment/json/jsontext"
)

// DecodeError reports JSON that does not fit a protocol type: a missing or
// null required property, a value of the wrong kind, a value outside a
// closed enumeration, or a union value that matches no alternative.
type DecodeError struct {
	Type  string // the Go type being decoded, e.g. "Position" or "HoverContents"
	Field string // the JSON property, when the problem is one property
	Msg   string
	Err   error // the underlying error, if any
}

// Error says which type and member did not decode, and why.
func (e *DecodeError) Error() string {
	s := "protocol: " + e.Type
	if e.Field != "" {
		s += "." + e.Field
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *DecodeError) Unwrap() error { return e.Err }

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "invalid JSON"
}

func fieldError(typ, field string, err error) error {
	return &DecodeError{Type: typ, Field: field, Msg: "invalid value", Err: err}
}

func missingField(typ, field string) error {
	return &DecodeError{Type: typ, Field: field, Msg: "missing required property"}
}

func nullField(typ, field string) error {
	return &DecodeError{Type: typ, Field: field, Msg: "null is not allowed"}
}

func unionMismatch(typ string, k jsontext.Kind) error {
	return &DecodeError{Type: typ, Msg: "no alternative of the union accepts this " + kindName(k)}
}

// unquote returns the contents of a valid JSON string literal, without
// allocating unless it contains escapes.
func unquote(v []byte) ([]byte, error) {
	if len(v) >= 2 && bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1], nil
	}
	return jsontext.AppendUnquote(nil, v)
}

// The functions below inspect a complete, already validated JSON value (as
// returned by jsontext.Decoder.ReadValue) to choose a union alternative. They
// never allocate for member names without escapes.

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string literal starting at i.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the JSON value starting at i.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// objectMember returns the raw value of the top-level member name of the JSON
// object raw, and whether it exists.
func objectMember(raw []byte, name string) ([]byte, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	i++
	for {
		i = skipSpace(raw, i)
		if i >= len(raw) || raw[i] != '"' {
			return nil, false
		}
		end := skipString(raw, i)
		key := raw[i:end]
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
		vend := skipValue(raw, i)
		if k, err := unquote(key); err == nil && string(k) == name {
			return raw[i:vend], true
		}
		i = skipSpace(raw, vend)
		if i >= len(raw) || raw[i] != ',' {
			return nil, false
		}
		i++
	}
}

// objectHas reports whether the JSON object raw has a member name.
func objectHas(raw []byte, name string) bool {
	_, ok := objectMember(raw, name)
	return ok
}

// objectKeyIs reports whether the member name of the JSON object raw is the
// string literal lit (given quoted, as in the model).
func objectKeyIs(raw []byte, name, lit string) bool {
	v, ok := objectMember(raw, name)
	if !ok || len(v) == 0 || v[0] != '"' {
		return false
	}
	s, err := unquote(v)
	return err == nil && string(s) == lit
}

// firstElement returns the first element of the JSON array raw, and false if
// the array is empty.
func firstElement(raw []byte) ([]byte, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	i = skipSpace(raw, i+1)
	if i >= len(raw) || raw[i] == ']' {
		return nil, false
	}
	return raw[i:skipValue(raw, i)], true
}

// rawKind returns the kind of the JSON value raw.
func rawKind(raw []byte) jsontext.Kind {
	i := skipSpace(raw, 0)
	if i >= len(raw) {
		return 0
	}
	switch c := raw[i]; c {
	case 'n', 't', 'f', '"', '{', '[':
		return jsontext.Kind(c)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return '0'
	}
	return 0
}

// objectShape describes one object alternative of a union for the
// most-specific-match rule: every required member must be present and every
// literal member must hold its literal; among the shapes that match, the one
// that knows the most of the object's members wins, ties going to the earlier
// alternative.
type objectShape struct {
	alt      int
	required []string
	known    []string
	literals []string // pairs: name, literal value
	anything bool     // a map or raw object: matches any object, least specific
}

// bestShape returns the alternative of the most specific shape that raw
// matches, or -1.
func bestShape(raw []byte, shapes []objectShape) int {
	best, bestScore := -1, -1
	for _, s := range shapes {
		score := 0
		if !s.anything {
			if !s.matches(raw) {
				continue
			}
			score = 1
			for _, k := range s.known {
				if objectHas(raw, k) {
					score++
				}
			}
		}
		if score > bestScore {
			best, bestScore = s.alt, score
		}
	}
	return best
}

func (s *objectShape) matches(raw []byte) bool {
	for _, r := range s.required {
		if !objectHas(raw, r) {
			return false
		}
	}
	for i := 0; i+1 < len(s.literals); i += 2 {
		if !objectKeyIs(raw, s.literals[i], s.literals[i+1]) {
			return false
		}
	}
	return true
}
