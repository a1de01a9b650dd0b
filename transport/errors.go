package transport

import (
	"errors"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

// JSON-RPC 2.0 error codes, and LSP's RequestCancelled.
const (
	CodeParseError       = -32700
	CodeInvalidRequest   = -32600
	CodeMethodNotFound   = -32601
	CodeInvalidParams    = -32602
	CodeInternalError    = -32603
	CodeRequestCancelled = -32800
)

// Error is a JSON-RPC error object: what a peer answered a failed call with,
// or what a Handler returns to choose the code and data of its answer.
type Error struct {
	Code    int64          `json:"code"`
	Message string         `json:"message"`
	Data    jsontext.Value `json:"data,omitzero"`
}

// Error returns the code and message.
func (e *Error) Error() string { return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message) }

// JSONRPCError returns the error object's fields.
func (e *Error) JSONRPCError() (code int64, message string, data []byte) {
	return e.Code, e.Message, e.Data
}

// ErrMethodNotFound is what a Handler returns for a method it does not
// handle; the peer gets -32601.
var ErrMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "method not found"}

// ErrClosed is the cause of calls failed by Close.
var ErrClosed = errors.New("transport: connection closed")

// rpcError is what a Handler's error may implement to choose its JSON-RPC
// error object; *Error and protocol.ResponseError do.
type rpcError interface {
	JSONRPCError() (code int64, message string, data []byte)
}

// errorObject maps a handler's error to a JSON-RPC error object.
func errorObject(err error) *Error {
	var re rpcError
	if errors.As(err, &re) {
		code, msg, data := re.JSONRPCError()
		return &Error{Code: code, Message: msg, Data: data}
	}
	return &Error{Code: CodeInternalError, Message: err.Error()}
}
