package orchestrator

import (
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// outsideRoot is the error for a path outside the workspace root.
func (o *Orchestrator) outsideRoot(path string) *transport.Error {
	return api.Errorf(api.CodeOutsideRoot, "path %q is outside the workspace root %s", path, o.root)
}

// maxPathBytes bounds a path in a request (PATH_MAX on Linux): longer ones
// are refused before anything echoes them.
const maxPathBytes = 4096

// validPath checks a path parameter: given, and not longer than any file
// system allows.
func validPath(param, path string) error {
	switch {
	case path == "":
		return api.InvalidParams("%s is required", param)
	case len(path) > maxPathBytes:
		return api.InvalidParams("%s is %d bytes long; a path is at most %d", param, len(path), maxPathBytes)
	}
	return nil
}
