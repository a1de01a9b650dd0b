package orchestrator

import (
	"context"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/service/compiledb"
)

// overlayHeaders gives each of deps, on clangd (which compiles includes
// from disk), a compile command that reads headers (their what-if texts)
// through a virtual file system (compiledb.OverlayHeaders), and returns a
// function that gives them their commands back; the files it could not
// give one are returned.
func (s *session) overlayHeaders(ctx context.Context, c *client.Client, headers []checkFile, deps []string) (restore func(), without []string, err error) {
	root := s.rootOf(deps[0])
	db, err := compiledb.Read(root, s.o.compileCommandsDir(root))
	if err != nil {
		return nil, nil, err
	}
	texts := make(map[string]string, len(headers))
	for _, h := range headers {
		texts[h.abs] = h.src.text
	}
	undo, without, err := compiledb.OverlayHeaders(ctx, c, db, texts, deps)
	if err != nil {
		return nil, nil, err
	}
	return func() {
		ctx, cancel := context.WithTimeout(s.o.life, s.o.cfg.DiagnosticTimeout)
		defer cancel()
		if err := undo(ctx); err != nil && ctx.Err() == nil {
			s.o.log.Warn("give includers their compile commands back after a what-if", "server", s.spec.ID, "err", err)
		}
	}, without, nil
}
