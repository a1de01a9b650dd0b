package transport

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
)

// JSON-RPC 2.0 error codes, and LSP's RequestCancelled. These are the only
// definitions of the codes; the protocol package and the daemon use them.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800
)

// Error is a JSON-RPC error object: what a peer answered a failed call with,
// or what a Handler returns (or wraps) to choose the code, message and data
// of its answer. It is the one error type of a JSON-RPC answer in lspkit.
type Error struct {
	Code    int64          `json:"code"`
	Message string         `json:"message"`
	Data    jsontext.Value `json:"data,omitzero"`

	cause error // what went wrong inside, for errors.Is/As; not sent
}

// Errorf returns an Error with a formatted message.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WrapError returns an Error with code and message that unwraps to cause.
func WrapError(code int64, message string, cause error) *Error {
	return &Error{Code: code, Message: message, cause: cause}
}

// Error returns the code and message.
func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// Unwrap returns the error the Error was made from, if any.
func (e *Error) Unwrap() error { return e.cause }

// Is makes errors.Is(err, ErrMethodNotFound) true for any MethodNotFound
// answer.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t == ErrMethodNotFound && e.Code == CodeMethodNotFound
}

// appendJSON appends the error object as JSON: always valid, with invalid
// UTF-8 in the message replaced and data dropped unless it is valid JSON.
func (e *Error) appendJSON(b []byte) []byte {
	b = append(b, `{"code":`...)
	b = strconv.AppendInt(b, e.Code, 10)
	b = append(b, `,"message":`...)
	b = appendString(b, e.Message)
	if len(e.Data) > 0 && e.Data.IsValid() {
		b = append(b, `,"data":`...)
		b = append(b, e.Data...)
	}
	return append(b, '}')
}

// ErrMethodNotFound is what a Handler returns for a method it does not
// handle; the peer gets -32601.
var ErrMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "method not found"}

// ErrClosed is the cause of calls failed by Close.
var ErrClosed = errors.New("transport: connection closed")

// errorObject maps a handler's error to a JSON-RPC error object: an *Error
// it is or wraps, else an internal error with its text.
func errorObject(err error) *Error {
	if e, ok := errors.AsType[*Error](err); ok {
		return e
	}
	return &Error{Code: CodeInternalError, Message: err.Error()}
}

// syntaxError is what a decoder's error implements when the input is not
// valid JSON; TrailingData says a complete value was followed by more data
// (for a payload span found from the end of its message: the sign to read the
// message exactly). protocol.SyntaxError implements it.
type syntaxError interface {
	error
	TrailingData() bool
}
