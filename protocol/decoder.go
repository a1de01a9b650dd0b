package protocol

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// decoder reads JSON values from a byte slice into the generated types
// without reflection. It validates everything it reads, skipped members
// included: what it accepts is valid JSON (RFC 8259, UTF-8 checked), so no
// separate validation pass is needed before it. Member names are compared
// without allocating; strings share a few allocations per message.
type decoder struct {
	data    []byte
	pos     int
	depth   int
	scratch []byte // unescaped member names

	// text holds the bytes of the strings read so far, in chunks: a
	// message's strings share a few allocations instead of one each (a
	// chunk lives while any of its strings does, as the message's values
	// do together).
	text []byte

	// Slabs of the scalars optional members point to: a message's
	// pointers share a few allocations instead of one each.
	strs  []string
	bools []bool
	i32s  []int32
	u32s  []uint32
}

// slabNext returns the next free element of a slab, starting a new chunk
// (twice the last, 16 to 256) when it is full.
func slabNext[T any](slab *[]T) *T {
	if len(*slab) == cap(*slab) {
		*slab = make([]T, 0, min(max(2*cap(*slab), 16), 256))
	}
	*slab = (*slab)[:len(*slab)+1]
	return &(*slab)[len(*slab)-1]
}

// newStringLike, newBoolLike, newInt32Like and newUint32Like return a
// pointer to a zero scalar of type T from the decoder's slabs: the types
// share their underlying type's layout, so one slab serves them all.
func newStringLike[T ~string](d *decoder) *T { return (*T)(unsafe.Pointer(slabNext(&d.strs))) }

func newBoolLike[T ~bool](d *decoder) *T { return (*T)(unsafe.Pointer(slabNext(&d.bools))) }

func newInt32Like[T ~int32](d *decoder) *T { return (*T)(unsafe.Pointer(slabNext(&d.i32s))) }

func newUint32Like[T ~uint32](d *decoder) *T { return (*T)(unsafe.Pointer(slabNext(&d.u32s))) }

// The smallest and largest string chunks; longer strings than textAlone
// get an allocation of their own.
const (
	textChunkMin = 256
	textChunkMax = 16 << 10
	textAlone    = 1 << 10
)

// str returns b as a string, its bytes copied into the message's string
// chunk.
func (d *decoder) str(b []byte) string {
	n := len(b)
	if n == 0 {
		return ""
	}
	if n > textAlone {
		return string(b)
	}
	if cap(d.text)-len(d.text) < n {
		// A quarter of the rest of the message, within bounds: strings are
		// part of what follows, and the chunks grow with the message.
		d.text = make([]byte, 0, max(min((len(d.data)-d.pos)/4, textChunkMax), textChunkMin, n))
	}
	off := len(d.text)
	d.text = append(d.text, b...)
	return unsafe.String(&d.text[off], n)
}

// maxDepth bounds the nesting of arrays and objects, as encoding/json/v2
// does, so hostile input cannot exhaust the stack.
const maxDepth = 10000

// SyntaxError reports input that is not valid JSON, with the byte offset.
type SyntaxError struct {
	Offset int
	Msg    string

	trailing bool // a complete value was followed by more data
}

// TrailingData reports whether the input held a complete value followed by
// more data: for a payload span a transport found from the end of its
// message, the sign to find the span exactly.
func (e *SyntaxError) TrailingData() bool { return e.trailing }

// Error says what was wrong and where.
func (e *SyntaxError) Error() string {
	return "protocol: invalid JSON at offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

func (d *decoder) syntax(msg string) error { return &SyntaxError{Offset: d.pos, Msg: msg} }

// unexpected describes the byte at the current position as an error.
func (d *decoder) unexpected(what string) error {
	if d.pos >= len(d.data) {
		return d.syntax("unexpected end of input, expected " + what)
	}
	return d.syntax("unexpected " + strconv.QuoteRune(rune(d.data[d.pos])) + ", expected " + what)
}

// space skips whitespace.
func (d *decoder) space() {
	if d.pos < len(d.data) && d.data[d.pos] > ' ' {
		return // compact JSON: nothing to skip
	}
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek skips whitespace and returns the kind of the next value: one of
// n t f " 0 { [, or 0 at the end or before a byte no value starts with.
func (d *decoder) peek() jsontext.Kind {
	d.space()
	if d.pos >= len(d.data) {
		return 0
	}
	switch c := d.data[d.pos]; c {
	case 'n', 't', 'f', '"', '{', '[':
		return jsontext.Kind(c)
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return '0'
	}
	return 0
}

// kindError is the error for a value of the wrong kind where typ was
// expected.
func (d *decoder) kindError(typ string, want string) error {
	k := d.peek()
	if k == 0 {
		return d.unexpected("a value")
	}
	return &DecodeError{Type: typ, Msg: "expected " + want + ", got " + kindName(k)}
}

// null consumes a null if one is next and reports whether it did.
func (d *decoder) null() (bool, error) {
	if d.peek() != 'n' {
		return false, nil
	}
	return true, d.literal("null")
}

func (d *decoder) literal(lit string) error {
	if len(d.data)-d.pos < len(lit) || string(d.data[d.pos:d.pos+len(lit)]) != lit {
		return d.syntax("invalid literal, expected " + lit)
	}
	d.pos += len(lit)
	return nil
}

// openObject consumes the '{' that starts an object of type typ.
func (d *decoder) openObject(typ string) error {
	if d.peek() != '{' {
		return d.kindError(typ, "object")
	}
	d.pos++
	d.depth++
	if d.depth > maxDepth {
		return d.syntax("exceeded max depth")
	}
	return nil
}

// member reads the next member name of an object opened with openObject,
// and the colon after it; ok is false (and the '}' consumed) at the end of
// the object. first is true for the first call on an object. The name is
// valid until the next call.
func (d *decoder) member(first bool) (name []byte, ok bool, err error) {
	d.space()
	if d.pos >= len(d.data) {
		return nil, false, d.unexpected("'}' or a member name")
	}
	c := d.data[d.pos]
	if c == '}' {
		d.pos++
		d.depth--
		return nil, false, nil
	}
	if !first {
		if c != ',' {
			return nil, false, d.unexpected("',' or '}'")
		}
		d.pos++
		d.space()
		if d.pos >= len(d.data) {
			return nil, false, d.unexpected("a member name")
		}
		c = d.data[d.pos]
	}
	if c != '"' {
		return nil, false, d.unexpected("a member name")
	}
	// Member names are short and plain: one 8-byte word usually holds the
	// name and its closing quote, with the colon right after; else byte by
	// byte to the quote; anything else takes the general path.
	start := d.pos + 1
	if len(d.data)-start >= 8 {
		w := binary.LittleEndian.Uint64(d.data[start:])
		q := w ^ (lanes01 * '"')
		if quote := (q - lanes01) & ^q & lanes80; quote != 0 {
			n := bits.TrailingZeros64(quote) / 8
			bs := w ^ (lanes01 * '\\')
			special := w&lanes80 | (w-lanes01*0x20)&^w&lanes80 | (bs-lanes01)&^bs&lanes80
			if special&(1<<(8*n)-1) == 0 {
				if i := start + n; i+1 < len(d.data) && d.data[i+1] == ':' {
					d.pos = i + 2
					return d.data[start:i], true, nil
				}
			}
		}
	}
	for i := start; i < len(d.data); i++ {
		c := d.data[i]
		if c == '"' {
			if i+1 < len(d.data) && d.data[i+1] == ':' {
				d.pos = i + 2
				return d.data[start:i], true, nil
			}
			break
		}
		if c == '\\' || c < 0x20 || c >= 0x80 {
			break
		}
	}
	name, err = d.stringBytes(true)
	if err != nil {
		return nil, false, err
	}
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != ':' {
		return nil, false, d.unexpected("':'")
	}
	d.pos++
	return name, true, nil
}

// openArray consumes the '[' that starts an array of type typ.
func (d *decoder) openArray(typ string) error {
	if d.peek() != '[' {
		return d.kindError(typ, "array")
	}
	d.pos++
	d.depth++
	if d.depth > maxDepth {
		return d.syntax("exceeded max depth")
	}
	return nil
}

// element moves to the next element of an array opened with openArray; ok
// is false (and the ']' consumed) at its end. first is true for the first
// call on an array.
func (d *decoder) element(first bool) (ok bool, err error) {
	d.space()
	if d.pos >= len(d.data) {
		return false, d.unexpected("']' or a value")
	}
	c := d.data[d.pos]
	if c == ']' {
		d.pos++
		d.depth--
		return false, nil
	}
	if !first {
		if c != ',' {
			return false, d.unexpected("',' or ']'")
		}
		d.pos++
	}
	return true, nil
}

// SWAR constants: a byte repeated in each of the eight lanes of a uint64.
const (
	lanes01 = 0x0101010101010101
	lanes80 = 0x8080808080808080
)

// plainRun returns how many bytes from the start of b need no attention in a
// string: not a quote, backslash, control character or non-ASCII byte.
func plainRun(b []byte) int {
	n := 0
	for len(b)-n >= 8 {
		w := binary.LittleEndian.Uint64(b[n:])
		// A lane is special if it is ≥ 0x80, < 0x20, '"' or '\\'.
		high := w & lanes80
		ctrl := (w - lanes01*0x20) & ^w & lanes80
		q := w ^ (lanes01 * '"')
		quote := (q - lanes01) & ^q & lanes80
		bs := w ^ (lanes01 * '\\')
		back := (bs - lanes01) & ^bs & lanes80
		if m := high | ctrl | quote | back; m != 0 {
			return n + bits.TrailingZeros64(m)/8
		}
		n += 8
	}
	for n < len(b) {
		c := b[n]
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return n
		}
		n++
	}
	return n
}

// stringBytes reads a string literal at the current position (which holds
// its opening quote) and returns its unescaped contents. Without escapes the
// result aliases the input; with them it is built in the scratch buffer when
// scratch is set (valid until the next use), else in a fresh slice.
func (d *decoder) stringBytes(scratch bool) ([]byte, error) {
	start := d.pos + 1
	i := start
	for {
		i += plainRun(d.data[i:])
		if i >= len(d.data) {
			d.pos = i
			return nil, d.syntax("unterminated string")
		}
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return d.data[start:i], nil
		case c == '\\':
			var buf []byte
			if scratch {
				buf = d.scratch[:0]
			}
			buf = append(buf, d.data[start:i]...)
			buf, err := d.unescape(buf, i)
			if scratch {
				d.scratch = buf
			}
			return buf, err
		case c < 0x20:
			d.pos = i
			return nil, d.syntax("control character in string")
		default:
			r, size := utf8.DecodeRune(d.data[i:])
			if r == utf8.RuneError && size == 1 {
				d.pos = i
				return nil, d.syntax("invalid UTF-8 in string")
			}
			i += size
		}
	}
}

// unescape continues a string from i (at a backslash or plain text),
// appending its unescaped contents to buf, and leaves the position past the
// closing quote.
func (d *decoder) unescape(buf []byte, i int) ([]byte, error) {
	for i < len(d.data) {
		n := plainRun(d.data[i:])
		buf = append(buf, d.data[i:i+n]...)
		i += n
		if i >= len(d.data) {
			break
		}
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return buf, nil
		case c < 0x20:
			d.pos = i
			return nil, d.syntax("control character in string")
		case c >= 0x80:
			r, size := utf8.DecodeRune(d.data[i:])
			if r == utf8.RuneError && size == 1 {
				d.pos = i
				return nil, d.syntax("invalid UTF-8 in string")
			}
			buf = append(buf, d.data[i:i+size]...)
			i += size
		default: // a backslash
			if i+1 >= len(d.data) {
				i++
				break
			}
			e := d.data[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := hex4(d.data, i)
				if !ok {
					d.pos = i
					return nil, d.syntax("invalid \\u escape")
				}
				i += 4
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if i+6 <= len(d.data) && d.data[i] == '\\' && d.data[i+1] == 'u' {
						r2, ok = hex4(d.data, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						r = dec
						i += 6
					} else {
						r = utf8.RuneError // a lone surrogate, as encoding/json/v2 does
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				d.pos = i - 1
				return nil, d.syntax("invalid escape")
			}
		}
	}
	d.pos = i
	return nil, d.syntax("unterminated string")
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// readString reads a string value.
func (d *decoder) readString(typ string) (string, error) {
	if d.peek() != '"' {
		return "", d.kindError(typ, "string")
	}
	b, err := d.stringBytes(false)
	if err != nil {
		return "", err
	}
	return d.str(b), nil
}

// readBool reads true or false.
func (d *decoder) readBool(typ string) (bool, error) {
	switch d.peek() {
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	}
	return false, d.kindError(typ, "boolean")
}

// number reads a number literal and returns it, validating its grammar.
func (d *decoder) number() ([]byte, error) {
	start := d.pos
	i := d.pos
	b := d.data
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
	default:
		d.pos = i
		return nil, d.syntax("invalid number")
	}
	if i < len(b) && b[i] == '.' {
		i++
		j := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
		if i == j {
			d.pos = i
			return nil, d.syntax("invalid number: no digits after '.'")
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := i
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		}
		if i == j {
			d.pos = i
			return nil, d.syntax("invalid number: no digits in exponent")
		}
	}
	d.pos = i
	return b[start:i], nil
}

// readInteger reads an integer in [lo, hi].
func (d *decoder) readInteger(typ string, lo, hi int64) (int64, error) {
	// The common case in one pass: a plain integer of up to 18 digits,
	// without a leading zero, followed by no fraction or exponent.
	d.space()
	b, i := d.data, d.pos
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	first := i
	var v uint64
	for i < len(b) && b[i]-'0' <= 9 && i-first < 18 {
		v = v*10 + uint64(b[i]-'0')
		i++
	}
	if i > first && (b[first] != '0' || i-first == 1) && (i == len(b) || b[i] != '.' && b[i] != 'e' && b[i] != 'E' && b[i]-'0' > 9) {
		n := int64(v)
		if neg {
			n = -n
		}
		if lo <= n && n <= hi {
			d.pos = i
			return n, nil
		}
	}
	return d.readIntegerSlow(typ, lo, hi)
}

// uintegerPair reads an object of two uinteger members written compactly
// in the given order — open is `{"first":`, mid is `,"second":` — into a
// and b, and reports whether it did; anything else (whitespace, another
// order, more members, a number it does not take) leaves the position
// where it was for the general path.
func (d *decoder) uintegerPair(open, mid string, a, b *uint32) bool {
	d.space()
	rest := d.data[d.pos:]
	if len(rest) < len(open) || string(rest[:len(open)]) != open {
		return false
	}
	i := len(open)
	x, i, ok := compactUinteger(rest, i)
	if !ok || len(rest)-i < len(mid) || string(rest[i:i+len(mid)]) != mid {
		return false
	}
	y, i, ok := compactUinteger(rest, i+len(mid))
	if !ok || i >= len(rest) || rest[i] != '}' {
		return false
	}
	*a, *b = x, y
	d.pos += i + 1
	return true
}

// compactUinteger reads a uinteger (0 to 2^31-1, no sign, fraction,
// exponent or leading zero) at b[i:], returning it and the index after.
func compactUinteger(b []byte, i int) (uint32, int, bool) {
	first := i
	var v uint64
	for i < len(b) && b[i]-'0' <= 9 && i-first < 11 {
		v = v*10 + uint64(b[i]-'0')
		i++
	}
	if i == first || b[first] == '0' && i-first > 1 || v > math.MaxInt32 {
		return 0, i, false
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		return 0, i, false
	}
	return uint32(v), i, true
}

// readIntegerSlow is readInteger for what its fast path does not take:
// every error, and integers written with a fraction or exponent.
func (d *decoder) readIntegerSlow(typ string, lo, hi int64) (int64, error) {
	if d.peek() != '0' {
		return 0, d.kindError(typ, "integer")
	}
	num, err := d.number()
	if err != nil {
		return 0, err
	}
	neg := num[0] == '-'
	digits := num
	if neg {
		digits = num[1:]
	}
	var v uint64
	for _, c := range digits {
		if c < '0' || c > '9' || v > (math.MaxInt64-9)/10 {
			return 0, &DecodeError{Type: typ, Msg: string(num) + " is not an integer in " + strconv.FormatInt(lo, 10) + ".." + strconv.FormatInt(hi, 10)}
		}
		v = v*10 + uint64(c-'0')
	}
	n := int64(v)
	if neg {
		n = -n
	}
	if n < lo || n > hi {
		return 0, &DecodeError{Type: typ, Msg: string(num) + " is not an integer in " + strconv.FormatInt(lo, 10) + ".." + strconv.FormatInt(hi, 10)}
	}
	return n, nil
}

func (d *decoder) readInt32(typ string) (int32, error) {
	n, err := d.readInteger(typ, math.MinInt32, math.MaxInt32)
	return int32(n), err
}

// readUint32 reads an LSP uinteger: 0 to 2^31-1.
func (d *decoder) readUint32(typ string) (uint32, error) {
	n, err := d.readInteger(typ, 0, math.MaxInt32)
	return uint32(n), err
}

func (d *decoder) readFloat64(typ string) (float64, error) {
	if d.peek() != '0' {
		return 0, d.kindError(typ, "number")
	}
	num, err := d.number()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		return 0, &DecodeError{Type: typ, Msg: string(num) + " is not a decimal", Err: err}
	}
	return f, nil
}

// skip consumes the next value, validating it.
func (d *decoder) skip() error {
	switch d.peek() {
	case '"':
		_, err := d.stringBytes(true)
		return err
	case '0':
		_, err := d.number()
		return err
	case 'n':
		return d.literal("null")
	case 't':
		return d.literal("true")
	case 'f':
		return d.literal("false")
	case '{':
		d.pos++
		d.depth++
		if d.depth > maxDepth {
			return d.syntax("exceeded max depth")
		}
		for first := true; ; first = false {
			_, ok, err := d.member(first)
			if err != nil || !ok {
				return err
			}
			if err := d.skip(); err != nil {
				return err
			}
		}
	case '[':
		d.pos++
		d.depth++
		if d.depth > maxDepth {
			return d.syntax("exceeded max depth")
		}
		for first := true; ; first = false {
			ok, err := d.element(first)
			if err != nil || !ok {
				return err
			}
			if err := d.skip(); err != nil {
				return err
			}
		}
	}
	return d.unexpected("a value")
}

// raw consumes the next value, validating it, and returns its bytes
// (aliasing the input).
func (d *decoder) raw() ([]byte, error) {
	d.space()
	start := d.pos
	if err := d.skip(); err != nil {
		return nil, err
	}
	return d.data[start:d.pos], nil
}

// pickSpan returns the bytes a union's pick function looks at to choose an
// alternative for the next value, of kind k, without consuming it: a string
// or number exactly (as far as it is valid), an object or array as the rest of
// the input, of which the pick functions read only the first element or the
// member names and the values they test. The decode that follows validates
// everything; a pick on invalid input only chooses which decoder reports it.
func (d *decoder) pickSpan(k jsontext.Kind) []byte {
	start := d.pos
	switch k {
	case '"':
		d.stringBytes(true)
	case '0':
		d.number()
	default:
		return d.data[start:]
	}
	end := d.pos
	d.pos = start
	return d.data[start:end]
}

// readRaw reads a value as owned raw JSON (LSPAny).
func (d *decoder) readRaw() (jsontext.Value, error) {
	b, err := d.raw()
	if err != nil {
		return nil, err
	}
	return jsontext.Value(append([]byte(nil), b...)), nil
}

// end checks that only whitespace follows the value.
func (d *decoder) end() error {
	d.space()
	if d.pos < len(d.data) {
		return &SyntaxError{Offset: d.pos, Msg: "data after the value", trailing: true}
	}
	return nil
}

// decodable is what the generated types implement: decoding from a decoder.
type decodable interface {
	decodeFrom(d *decoder) error
}

// unmarshalFrom implements UnmarshalJSONFrom for the generated types over
// the decoder: the value is read (and validated) by dec, then decoded here.
func unmarshalFrom(dec *jsontext.Decoder, v decodable) error {
	raw, err := dec.ReadValue()
	if err != nil {
		return err
	}
	d := decoder{data: raw}
	return v.decodeFrom(&d)
}

// The functions below decode the type expressions the generated code uses
// around its named types: each takes its destination first, as method
// expressions of the generated types do, so they compose.

func decodeStringInto(v *string, d *decoder) error {
	s, err := d.readString("string")
	*v = s
	return err
}

//lint:ignore U1000 used by code generated from models with boolean lists
func decodeBoolInto(v *bool, d *decoder) error {
	b, err := d.readBool("boolean")
	*v = b
	return err
}

func decodeInt32Into(v *int32, d *decoder) error {
	n, err := d.readInt32("integer")
	*v = n
	return err
}

func decodeUint32Into(v *uint32, d *decoder) error {
	n, err := d.readUint32("uinteger")
	*v = n
	return err
}

//lint:ignore U1000 used by code generated from models with decimal lists
func decodeFloat64Into(v *float64, d *decoder) error {
	f, err := d.readFloat64("decimal")
	*v = f
	return err
}

func decodeRawInto(v *jsontext.Value, d *decoder) error {
	r, err := d.readRaw()
	*v = r
	return err
}

// decodeSliceInto decodes an array whose elements elem decodes. The result
// is never nil: an empty array is an empty slice.
func decodeSliceInto[T any](v *[]T, d *decoder, typ string, elem func(*T, *decoder) error) error {
	if err := d.openArray(typ); err != nil {
		return err
	}
	out := (*v)[:0]
	if out == nil {
		out = []T{}
	}
	start := d.pos
	for first := true; ; first = false {
		ok, err := d.element(first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if len(out) == cap(out) && len(out) >= growEstimateAfter {
			out = slices.Grow(out, estimateRest(len(out), d.pos-start, len(d.data)-d.pos))
		}
		var x T
		out = append(out, x)
		if err := elem(&out[len(out)-1], d); err != nil {
			return &DecodeError{Type: typ, Msg: "element " + strconv.Itoa(len(out)-1), Err: err}
		}
	}
	*v = out
	return nil
}

// growEstimateAfter is the length from which a growing array's capacity
// is estimated from its elements' size instead of doubled.
const growEstimateAfter = 8

// estimateRest guesses how many more elements an array holds: n elements
// took used bytes and left bytes follow in the message, so at most about
// left / (used/n) — capped at 32 times n (the rest of the message may hold
// other things) and at least n (doubling).
func estimateRest(n, used, left int) int {
	if used <= 0 {
		return n
	}
	return min(max(left*n/used+1, n), 32*n)
}

// decodeMapInto decodes an object whose member values elem decodes, keyed
// by their names converted by key.
func decodeMapInto[K ~string, V any](v *map[K]V, d *decoder, typ string, elem func(*V, *decoder) error) error {
	if err := d.openObject(typ); err != nil {
		return err
	}
	m := make(map[K]V)
	for first := true; ; first = false {
		name, ok, err := d.member(first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		k := K(name)
		var x V
		if err := elem(&x, d); err != nil {
			return &DecodeError{Type: typ, Field: string(k), Msg: "invalid value", Err: err}
		}
		m[k] = x
	}
	*v = m
	return nil
}

// decodeArrayInto decodes a tuple of exactly len(v) elements.
func decodeArrayInto[T any](v []T, d *decoder, typ string, elem func(*T, *decoder) error) error {
	if err := d.openArray(typ); err != nil {
		return err
	}
	n := 0
	for first := true; ; first = false {
		ok, err := d.element(first)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if n == len(v) {
			return &DecodeError{Type: typ, Msg: "more than " + strconv.Itoa(len(v)) + " elements"}
		}
		if err := elem(&v[n], d); err != nil {
			return &DecodeError{Type: typ, Msg: "element " + strconv.Itoa(n), Err: err}
		}
		n++
	}
	if n != len(v) {
		return &DecodeError{Type: typ, Msg: "expected " + strconv.Itoa(len(v)) + " elements, got " + strconv.Itoa(n)}
	}
	return nil
}

// decodeNullableInto decodes null or a value elem decodes.
func decodeNullableInto[T any](v *Nullable[T], d *decoder, elem func(*T, *decoder) error) error {
	isNull, err := d.null()
	if err != nil || isNull {
		*v = Nullable[T]{}
		return err
	}
	var x T
	if err := elem(&x, d); err != nil {
		return err
	}
	*v = Nullable[T]{value: x, valid: true}
	return nil
}

// decodePointerInto decodes a value elem decodes into a fresh *T.
func decodePointerInto[T any](v **T, d *decoder, elem func(*T, *decoder) error) error {
	x := new(T)
	if err := elem(x, d); err != nil {
		return err
	}
	*v = x
	return nil
}
