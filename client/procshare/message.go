package procshare

import (
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/transport"
)

// message is one JSON-RPC message, read into its parts (copied: it
// outlives the frame it came in).
type message struct {
	kind   transport.MessageKind
	id     string // the id as JSON ("7", `"a"`); "" for a notification
	method string
	params []byte
	result []byte
	err    []byte
}

// parse reads one frame's message.
func parse(frame []byte) (message, error) {
	var e transport.Envelope
	if err := e.Scan(frame); err != nil {
		return message{}, err
	}
	m := message{kind: e.Kind, method: string(e.Method), params: clone(e.Params), result: clone(e.Result), err: clone(e.Error)}
	switch e.IDKind {
	case transport.IDNumber:
		m.id = strconv.FormatInt(e.IDNum, 10)
	case transport.IDString:
		b, err := jsontext.AppendQuote(nil, e.IDStr)
		if err != nil {
			return message{}, fmt.Errorf("procshare: id: %w", err)
		}
		m.id = string(b)
	case transport.IDNull:
		m.id = "null"
	}
	return m, nil
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// encode writes m back as JSON.
func (m message) encode() []byte {
	b := make([]byte, 0, 64+len(m.params)+len(m.result)+len(m.err))
	b = append(b, `{"jsonrpc":"2.0"`...)
	if m.id != "" {
		b = append(b, `,"id":`...)
		b = append(b, m.id...)
	}
	if m.method != "" {
		b = append(b, `,"method":`...)
		b, _ = jsontext.AppendQuote(b, m.method) // a method read from JSON quotes again
	}
	if m.params != nil {
		b = append(b, `,"params":`...)
		b = append(b, m.params...)
	}
	switch {
	case m.err != nil:
		b = append(b, `,"error":`...)
		b = append(b, m.err...)
	case m.kind == transport.KindResponse:
		b = append(b, `,"result":`...)
		if m.result == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, m.result...)
		}
	}
	return append(b, '}')
}

// reply is an answer to the request with id.
func reply(id string, result []byte) message {
	return message{kind: transport.KindResponse, id: id, result: result}
}

// replyError is an error answer to the request with id.
func replyError(id string, code int, text string) message {
	e := append([]byte(`{"code":`), strconv.Itoa(code)...)
	e = append(e, `,"message":`...)
	e, _ = jsontext.AppendQuote(e, text) // invalid UTF-8 is replaced
	return message{kind: transport.KindError, id: id, err: append(e, '}')}
}

// notification is a notification of method with params.
func notification(method string, params []byte) message {
	return message{kind: transport.KindNotification, method: method, params: params}
}
