package transport

import (
	"bytes"
	"errors"
	"fmt"
)

// MessageKind classifies a JSON-RPC message.
type MessageKind uint8

// The kinds of JSON-RPC 2.0 messages.
const (
	KindInvalid      MessageKind = iota
	KindRequest                  // method and id
	KindNotification             // method, no id
	KindResponse                 // id and result
	KindError                    // id (possibly null) and error
)

// String names the kind.
func (k MessageKind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResponse:
		return "response"
	case KindError:
		return "error response"
	}
	return "invalid message"
}

// IDKind says what an id holds.
type IDKind uint8

// The kinds of JSON-RPC ids.
const (
	IDNone   IDKind = iota // no id member
	IDNull                 // "id": null (an error response to an unreadable request)
	IDNumber               // an integer
	IDString               // a string
)

// ErrBatch is the error for a JSON array message: JSON-RPC batches, which LSP
// does not use.
var ErrBatch = errors.New("transport: batch messages (JSON arrays) are not supported by LSP")

// maxDepth bounds the nesting of values the scanner validates.
const maxDepth = 1000

// An Envelope is the outer shape of one JSON-RPC message, found by Scan
// without reflection or allocation. Scan validates the envelope itself (the
// object, its members, jsonrpc, id and method) but does not read inside
// params, result and error: their decoder validates them, once (see Validate
// for a standalone check; Conn validates incoming params before dispatch). Its byte slices point into the scanned
// message (or into the Envelope's own scratch space for escaped strings)
// and are valid until the message's buffer or the Envelope is reused.
type Envelope struct {
	Kind   MessageKind
	IDKind IDKind
	IDNum  int64  // the id, when IDKind is IDNumber
	IDStr  []byte // the id, unquoted, when IDKind is IDString
	Method []byte // unquoted; nil for responses
	Params []byte // raw JSON; nil when absent
	Result []byte // raw JSON; nil when absent
	Error  []byte // raw JSON; nil when absent

	scratch []byte
	members uint8 // the envelope members met so far, even if their value was bad
}

// HasMethod reports whether the message had a method member, read or not:
// after a failed Scan it tells a broken request from a broken response.
func (e *Envelope) HasMethod() bool { return e.members&hasMethod != 0 }

// ScanError reports a message that is not a valid JSON-RPC 2.0 message.
// Offset is the byte offset in the message.
type ScanError struct {
	Offset int
	Msg    string
	Syntax bool // the message is not well-formed JSON (else it is JSON, but not a valid message)

	trailing bool // Validate found data after a complete value
}

// Error says what was wrong and at which byte of the message.
func (e *ScanError) Error() string {
	return fmt.Sprintf("transport: invalid JSON-RPC message at byte %d: %s", e.Offset, e.Msg)
}

// member bits, to find duplicates and classify.
const (
	hasJSONRPC = 1 << iota
	hasID
	hasMethod
	hasParams
	hasResult
	hasError
)

// Scan parses msg, a complete JSON-RPC message, validating its envelope.
// On error the Envelope still holds the id if it was read before the
// problem, so a request can be answered.
//
// Scan finds where an object or array payload ends by parsing the members
// after it backwards from the end of the message, so its cost does not grow
// with the payload. The spans are exact whenever only scalar members follow
// the payload, the shape JSON-RPC implementations write. When a member
// holding an object or array follows it, the payload's span runs on to the
// end of that member: validating or decoding the span then reports data after
// the value, and ScanExact reads the message exactly.
func (e *Envelope) Scan(msg []byte) error { return e.scan(msg, true) }

// ScanExact is Scan reading every member forwards, exact for any message.
func (e *Envelope) ScanExact(msg []byte) error { return e.scan(msg, false) }

func (e *Envelope) scan(msg []byte, fromTail bool) error {
	*e = Envelope{scratch: e.scratch[:0]}
	s := scanner{b: msg}
	s.space()
	if s.i >= len(msg) {
		return s.fail("empty message")
	}
	switch msg[s.i] {
	case '[':
		return ErrBatch
	case '{':
	default:
		if err := Validate(msg); err != nil {
			return err
		}
		return s.invalid("a message must be a JSON object")
	}
	s.i++
	var seen uint8
	s.space()
	if s.peek() == '}' {
		s.i++
	} else {
		for {
			s.space()
			keyStart := s.i
			key, escaped, err := s.str()
			if err != nil {
				return err
			}
			if escaped {
				e.scratch = appendUnescaped(e.scratch[:0], key)
				key = e.scratch
			}
			s.space()
			if s.peek() != ':' {
				return s.fail("expected ':' after member name")
			}
			s.i++
			s.space()
			valStart := s.i
			bit := memberBit(key)
			if seen&bit != 0 {
				return &ScanError{Offset: keyStart, Msg: fmt.Sprintf("duplicate member %q", key)}
			}
			seen |= bit
			e.members = seen
			if fromTail && bit&(hasParams|hasResult|hasError) != 0 && (s.peek() == '{' || s.peek() == '[') {
				if end, ok := e.tail(msg, valStart, &seen); ok {
					e.setPayload(bit, msg[valStart:end])
					goto classify
				}
			}
			if err := e.memberValue(&s, bit, valStart); err != nil {
				return err
			}
			s.space()
			if s.peek() == ',' {
				s.i++
				continue
			}
			if s.peek() == '}' {
				s.i++
				break
			}
			return s.fail("expected ',' or '}' in message")
		}
	}
	s.space()
	if s.i != len(msg) {
		return s.fail("data after the message object")
	}
classify:
	if seen&hasJSONRPC == 0 {
		return &ScanError{Offset: 0, Msg: `missing "jsonrpc": "2.0"`}
	}
	switch {
	case seen&hasMethod != 0 && seen&(hasResult|hasError) == 0:
		if seen&hasID != 0 {
			if e.IDKind == IDNull {
				return &ScanError{Offset: 0, Msg: "a request id must not be null"}
			}
			e.Kind = KindRequest
		} else {
			e.Kind = KindNotification
		}
	case seen&hasMethod == 0 && seen&hasID != 0 && seen&(hasResult|hasError) == hasResult:
		if e.IDKind == IDNull {
			return &ScanError{Offset: 0, Msg: "a result's id must not be null"}
		}
		e.Kind = KindResponse
	case seen&hasMethod == 0 && seen&hasID != 0 && seen&(hasResult|hasError) == hasError:
		e.Kind = KindError
	default:
		return &ScanError{Offset: 0, Msg: "neither a request, a notification nor a response (check method, id, result and error)"}
	}
	return nil
}

// memberValue consumes the value of one member and records it.
func (e *Envelope) memberValue(s *scanner, bit uint8, valStart int) error {
	msg := s.b
	switch bit {
	case hasJSONRPC:
		if s.peek() != '"' {
			return s.invalid(`"jsonrpc" must be "2.0"`)
		}
		v, _, err := s.str()
		if err != nil {
			return err
		}
		if string(v) != "2.0" {
			return &ScanError{Offset: valStart, Msg: `"jsonrpc" must be "2.0"`}
		}
	case hasID:
		if err := e.scanID(s); err != nil {
			return err
		}
	case hasMethod:
		if s.peek() != '"' {
			return s.invalid(`"method" must be a string`)
		}
		v, escaped, err := s.str()
		if err != nil {
			return err
		}
		if escaped {
			start := len(e.scratch)
			e.scratch = appendUnescaped(e.scratch, v)
			v = e.scratch[start:]
		}
		e.Method = v
	case hasParams:
		if c := s.peek(); c != '{' && c != '[' && c != 'n' {
			return s.invalid(`"params" must be an object or an array`)
		}
		if err := s.value(0); err != nil {
			return err
		}
		e.Params = msg[valStart:s.i]
	case hasResult:
		if err := s.value(0); err != nil {
			return err
		}
		e.Result = msg[valStart:s.i]
	case hasError:
		if s.peek() != '{' {
			return s.invalid(`"error" must be an object`)
		}
		if err := s.value(0); err != nil {
			return err
		}
		e.Error = msg[valStart:s.i]
	default:
		if err := s.value(0); err != nil {
			return err
		}
	}
	return nil
}

// setPayload records a params, result or error span.
func (e *Envelope) setPayload(bit uint8, span []byte) {
	switch bit {
	case hasParams:
		e.Params = span
	case hasResult:
		e.Result = span
	case hasError:
		e.Error = span
	}
}

// tail finds where the payload value starting at p ends without reading
// it: it parses the members after it backwards from the end of the message,
// and confirms each by parsing it forwards. It handles the usual shape, where
// only scalar members (such as "id") follow the payload; for anything else
// it reports false and changes nothing, and Scan reads on forwards.
func (e *Envelope) tail(msg []byte, p int, seen *uint8) (int, bool) {
	saved, savedSeen := *e, *seen
	fail := func() (int, bool) {
		scratch := e.scratch
		*e, *seen = saved, savedSeen
		e.scratch = scratch
		return 0, false
	}
	j := spaceBack(msg, len(msg))
	if j <= p || msg[j-1] != '}' {
		return fail()
	}
	j = spaceBack(msg, j-1)
	for {
		if j <= p {
			return fail()
		}
		if c := msg[j-1]; c == '}' || c == ']' {
			return j, true // the payload's end: only scalar members follow it
		}
		// A scalar member value ends at j; find where the member starts.
		vs := scalarStartBack(msg, j)
		k := spaceBack(msg, vs)
		if vs <= p || k == 0 || msg[k-1] != ':' {
			return fail()
		}
		k = spaceBack(msg, k-1)
		ks := stringStartBack(msg, k)
		if ks <= p {
			return fail()
		}
		// Parse the member forwards, exactly as the main loop would.
		s := scanner{b: msg[:j], i: ks}
		key, escaped, err := s.str()
		if err != nil {
			return fail()
		}
		if escaped {
			e.scratch = appendUnescaped(e.scratch[:0], key)
			key = e.scratch
		}
		bit := memberBit(key)
		if *seen&bit != 0 {
			return fail() // duplicate: let the forward scan report it
		}
		*seen |= bit
		e.members = *seen
		s.space()
		if s.peek() != ':' {
			return fail()
		}
		s.i++
		s.space()
		if e.memberValue(&s, bit, s.i) != nil || s.i != j {
			return fail()
		}
		j = spaceBack(msg, ks)
		if j == 0 || msg[j-1] != ',' {
			return fail()
		}
		j = spaceBack(msg, j-1)
	}
}

// spaceBack returns the index just past the last non-space byte before j.
func spaceBack(b []byte, j int) int {
	for j > 0 {
		switch b[j-1] {
		case ' ', '\t', '\n', '\r':
			j--
		default:
			return j
		}
	}
	return j
}

// scalarStartBack returns where the string, number or literal ending just
// before j starts, or -1.
func scalarStartBack(b []byte, j int) int {
	if b[j-1] == '"' {
		return stringStartBack(b, j)
	}
	i := j
	for i > 0 {
		c := b[i-1]
		if '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E' {
			i--
			continue
		}
		break
	}
	if i == j {
		return -1
	}
	return i
}

// stringStartBack returns the index of the opening quote of the string whose
// closing quote is b[j-1], or -1.
func stringStartBack(b []byte, j int) int {
	if j < 2 || b[j-1] != '"' {
		return -1
	}
	i := j - 1
	for {
		q := bytes.LastIndexByte(b[:i], '"')
		if q < 0 {
			return -1
		}
		// The quote is escaped if an odd number of backslashes precede it.
		n := 0
		for q-n-1 >= 0 && b[q-n-1] == '\\' {
			n++
		}
		if n%2 == 0 {
			return q
		}
		i = q
	}
}

// Validate reports whether data is one well-formed JSON value (with optional
// surrounding space), as a *ScanError with Syntax set. Scan leaves the
// contents of params, result and error to their decoder; Validate checks them
// when the decoder is not at hand.
func Validate(data []byte) error {
	s := scanner{b: data}
	s.space()
	if err := s.value(0); err != nil {
		return err
	}
	s.space()
	if s.i != len(data) {
		return &ScanError{Offset: s.i, Msg: "data after the value", Syntax: true, trailing: true}
	}
	return nil
}

// TrailingData reports whether the error is Validate's report of data after
// a complete value: for a span from Scan, the sign to use ScanExact.
func (e *ScanError) TrailingData() bool { return e.trailing }

// memberBit returns the bit of a member the envelope reads, or 0.
func memberBit(key []byte) uint8 {
	switch string(key) {
	case "jsonrpc":
		return hasJSONRPC
	case "id":
		return hasID
	case "method":
		return hasMethod
	case "params":
		return hasParams
	case "result":
		return hasResult
	case "error":
		return hasError
	}
	return 0
}

func (e *Envelope) scanID(s *scanner) error {
	start := s.i
	switch c := s.peek(); {
	case c == '"':
		v, escaped, err := s.str()
		if err != nil {
			return err
		}
		if escaped {
			at := len(e.scratch)
			e.scratch = appendUnescaped(e.scratch, v)
			v = e.scratch[at:]
		}
		e.IDKind, e.IDStr = IDString, v
	case c == 'n':
		if err := s.value(0); err != nil {
			return err
		}
		e.IDKind = IDNull
	case c == '-' || '0' <= c && c <= '9':
		if err := s.number(); err != nil {
			return err
		}
		n, ok := parseInt(s.b[start:s.i])
		if !ok {
			return &ScanError{Offset: start, Msg: "an id number must be an integer that fits 64 bits"}
		}
		e.IDKind, e.IDNum = IDNumber, n
	default:
		return s.invalid("an id must be a string, an integer or null")
	}
	return nil
}
