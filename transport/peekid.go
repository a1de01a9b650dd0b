package transport

// recoverID reads the id of a message Scan rejected before reaching its
// id (say, for a wrong "jsonrpc"), so that the error answer can name it: a
// top-level "id" member holding a string or an integer, if msg is a JSON
// object.
func (e *Envelope) recoverID(msg []byte) {
	s := scanner{b: msg}
	s.space()
	if s.peek() != '{' {
		return
	}
	s.i++
	for {
		s.space()
		key, escaped, err := s.str()
		if err != nil {
			return
		}
		if escaped {
			key = appendUnescaped(nil, key)
		}
		s.space()
		if s.peek() != ':' {
			return
		}
		s.i++
		s.space()
		if string(key) == "id" {
			var probe Envelope
			if probe.scanID(&s) == nil && probe.IDKind != IDNull {
				e.IDKind, e.IDNum, e.IDStr = probe.IDKind, probe.IDNum, probe.IDStr
			}
			return
		}
		if !s.skip() {
			return
		}
		s.space()
		if s.peek() != ',' {
			return
		}
		s.i++
	}
}

// PeekID reads the top-level id of a message that may not be valid JSON-RPC
// or even valid JSON — a string with invalid UTF-8, values nested past any
// limit, a message cut short after its id — so that an error answer can
// name it: a string or integer "id" member of a top-level object, reached
// through whatever members come before it. False when there is none to read.
func PeekID(msg []byte) (ID, bool) {
	var e Envelope
	e.recoverID(msg)
	id := envelopeID(&e)
	return id, id.IsValid()
}

// skip passes over one value leniently, for recoverID: strings must be
// terminated and brackets balanced, but nesting has no limit and scalars
// are not checked.
func (s *scanner) skip() bool {
	depth := 0
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case '"':
			if _, _, err := s.str(); err != nil {
				return false
			}
			if depth == 0 {
				return true
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return true // the end of the enclosing object: a scalar ended
			}
			depth--
			if depth == 0 {
				s.i++
				return true
			}
		case ',':
			if depth == 0 {
				return true
			}
		}
		s.i++
	}
	return false
}
