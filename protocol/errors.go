package protocol

import (
	"github.com/lspkit/lspkit/transport"
)

// The errors the generated dispatch and decoders answer with are
// *transport.Error values, JSON-RPC's one error type, with the codes defined
// once in the transport package (the generated ErrorCodes and LSPErrorCodes
// enumerations name the LSP ones too).

func methodNotFound(method string) error {
	return transport.Errorf(transport.CodeMethodNotFound, "method not found: %s", method)
}

func invalidParams(method string, cause error) error {
	if cause == nil {
		return transport.Errorf(transport.CodeInvalidParams, "%s: params are required", method)
	}
	return transport.WrapError(transport.CodeInvalidParams, method+": invalid params: "+cause.Error(), cause)
}

func internalError(format string, args ...any) error {
	return transport.Errorf(transport.CodeInternalError, format, args...)
}
