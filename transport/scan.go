package transport

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// This file is the JSON scanner under Envelope: a single pass that
// validates a JSON value (RFC 8259: strings, numbers, literals, nesting
// up to maxDepth) without building it, strings' ordinary runs tested
// eight bytes at a time; and the primitives the envelope reads members
// with (strings unescaped, integers parsed).

// scanner validates JSON in place.
type scanner struct {
	b []byte
	i int
}

// fail reports malformed JSON; invalid reports well-formed JSON that is not
// a valid message.
func (s *scanner) fail(msg string) error { return &ScanError{Offset: s.i, Msg: msg, Syntax: true} }

func (s *scanner) invalid(msg string) error { return &ScanError{Offset: s.i, Msg: msg} }

func (s *scanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) space() {
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return // the common case: compact JSON
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// str consumes a string literal and returns its contents (still escaped)
// and whether it holds escapes.
func (s *scanner) str() ([]byte, bool, error) {
	if s.peek() != '"' {
		return nil, false, s.fail("expected a string")
	}
	s.i++
	start := s.i
	escaped := false
	for s.i < len(s.b) {
		s.i += plainPrefix(s.b[s.i:])
		if s.i >= len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], escaped, nil
		case c == '\\':
			escaped = true
			if s.i+1 >= len(s.b) {
				return nil, false, s.fail("unterminated string")
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if s.i+6 > len(s.b) || !isHex4(s.b[s.i+2:s.i+6]) {
					return nil, false, s.fail(`invalid \u escape`)
				}
				s.i += 6
			default:
				return nil, false, s.fail("invalid escape in string")
			}
		case c < 0x20:
			return nil, false, s.fail("control character in string")
		default:
			s.i++
		}
	}
	return nil, false, s.fail("unterminated string")
}

// SWAR constants: a byte repeated in each of the eight lanes of a uint64.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// plainPrefix returns how many leading bytes of b are ordinary string
// content: not '"', not '\\' and not a control character. It tests eight
// bytes at a time.
func plainPrefix(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		quote := x ^ (lanes01 * '"')
		slash := x ^ (lanes01 * '\\')
		// A lane is flagged when it is zero after the XOR (a quote or a
		// backslash) or below 0x20; the lowest flagged lane is exact.
		flags := ((quote - lanes01) &^ quote) | ((slash - lanes01) &^ slash) | (x - lanes01*0x20)
		flags &^= x // a lane with its high bit set (UTF-8) is never special
		flags &= lanes80
		if flags != 0 {
			return i + bits.TrailingZeros64(flags)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return i
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// number consumes a JSON number.
func (s *scanner) number() error {
	start := s.i
	if s.peek() == '-' {
		s.i++
	}
	switch c := s.peek(); {
	case c == '0':
		s.i++
	case '1' <= c && c <= '9':
		for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
			s.i++
		}
	default:
		return s.fail("invalid number")
	}
	if s.peek() == '.' {
		s.i++
		if d := s.digits(); d == 0 {
			return s.fail("invalid number")
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.i++
		if c := s.peek(); c == '+' || c == '-' {
			s.i++
		}
		if d := s.digits(); d == 0 {
			return s.fail("invalid number")
		}
	}
	if s.i == start {
		return s.fail("invalid number")
	}
	return nil
}

func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// value consumes and validates any JSON value.
func (s *scanner) value(depth int) error {
	if depth > maxDepth {
		return s.fail("values nested too deeply")
	}
	switch c := s.peek(); {
	case c == '"':
		_, _, err := s.str()
		return err
	case c == '{':
		s.i++
		s.space()
		if s.peek() == '}' {
			s.i++
			return nil
		}
		for {
			s.space()
			if _, _, err := s.str(); err != nil {
				return err
			}
			s.space()
			if s.peek() != ':' {
				return s.fail("expected ':' after object key")
			}
			s.i++
			s.space()
			if err := s.value(depth + 1); err != nil {
				return err
			}
			s.space()
			switch s.peek() {
			case ',':
				s.i++
			case '}':
				s.i++
				return nil
			default:
				return s.fail("expected ',' or '}' in object")
			}
		}
	case c == '[':
		s.i++
		s.space()
		if s.peek() == ']' {
			s.i++
			return nil
		}
		for {
			s.space()
			if err := s.value(depth + 1); err != nil {
				return err
			}
			s.space()
			switch s.peek() {
			case ',':
				s.i++
			case ']':
				s.i++
				return nil
			default:
				return s.fail("expected ',' or ']' in array")
			}
		}
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	case c == 0 && s.i >= len(s.b):
		return s.fail("unexpected end of message")
	}
	return s.fail("invalid character")
}

func (s *scanner) literal(lit string) error {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		return s.fail("invalid literal")
	}
	s.i += len(lit)
	return nil
}

// appendUnescaped appends the unescaped contents of a valid JSON string body.
func appendUnescaped(dst, src []byte) []byte {
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		switch src[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := rune(hexVal(src[i+1 : i+5]))
			i += 4
			if 0xD800 <= r && r < 0xDC00 && i+6 < len(src) && src[i+1] == '\\' && src[i+2] == 'u' {
				if r2 := rune(hexVal(src[i+3 : i+7])); 0xDC00 <= r2 && r2 < 0xE000 {
					r = (r-0xD800)<<10 + (r2 - 0xDC00) + 0x10000
					i += 6
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, src[i])
		}
	}
	return dst
}

func hexVal(b []byte) int {
	n := 0
	for _, c := range b {
		n <<= 4
		switch {
		case '0' <= c && c <= '9':
			n |= int(c - '0')
		case 'a' <= c && c <= 'f':
			n |= int(c-'a') + 10
		default:
			n |= int(c-'A') + 10
		}
	}
	return n
}

// parseInt parses a JSON integer (already validated as a number) into an
// int64, rejecting fractions, exponents and overflow.
func parseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (1<<63)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	switch {
	case neg && n <= 1<<63:
		return -int64(n-1) - 1, true
	case !neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}
