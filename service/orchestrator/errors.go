package orchestrator

import (
	"fmt"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// invalidParams is the error for a parameter that is missing or out of
// range: a sentence naming the parameter as the contract names it.
func invalidParams(format string, args ...any) *transport.Error {
	return transport.Errorf(transport.CodeInvalidParams, format, args...)
}

// outsideRoot is the error for a path outside the workspace root.
func (o *Orchestrator) outsideRoot(path string) *transport.Error {
	return api.Errorf(api.CodeOutsideRoot, "path %q is outside the workspace root %s", path, o.root)
}

// noServer is the error when no server can answer for a file.
func noServer(format string, args ...any) *transport.Error {
	return api.Errorf(api.CodeNoServer, format, args...)
}

// notFound is the error for a file that does not exist.
func notFound(file string, err error) *transport.Error {
	return transport.WrapError(api.CodeNotFound, fmt.Sprintf("no such file: %s", file), err)
}
