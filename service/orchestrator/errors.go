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

// maxPathBytes bounds a path in a request (PATH_MAX on Linux): longer ones
// are refused before anything echoes them.
const maxPathBytes = 4096

// validPath checks a path parameter: given, and not longer than any file
// system allows.
func validPath(param, path string) error {
	switch {
	case path == "":
		return invalidParams("%s is required", param)
	case len(path) > maxPathBytes:
		return invalidParams("%s is %d bytes long; a path is at most %d", param, len(path), maxPathBytes)
	}
	return nil
}
