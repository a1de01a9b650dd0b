package protocol

import (
	"fmt"

	"github.com/go-json-experiment/json/jsontext"
)

// ResponseError is a JSON-RPC error object: a failed request's answer. The
// codes are those of the generated ErrorCodes and LSPErrorCodes enumerations.
// Handlers return it (or wrap it) to choose the code a peer sees.
type ResponseError struct {
	Code    int32          `json:"code"`
	Message string         `json:"message"`
	Data    jsontext.Value `json:"data,omitzero"`
}

// Error returns the code and message.
func (e *ResponseError) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// JSONRPCError returns the code, message and data of the error object; the
// transport layer uses it to answer a request with this error.
func (e *ResponseError) JSONRPCError() (code int64, message string, data []byte) {
	return int64(e.Code), e.Message, e.Data
}

// NewResponseError returns a ResponseError with a formatted message.
func NewResponseError(code int32, format string, args ...any) *ResponseError {
	return &ResponseError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// The JSON-RPC 2.0 error codes the helpers use (the generated ErrorCodes
// enumeration has them too; these do not depend on the model).
const (
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

func methodNotFound(method string) error {
	return NewResponseError(codeMethodNotFound, "method not found: %s", method)
}
