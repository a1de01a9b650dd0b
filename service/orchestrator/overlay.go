package orchestrator

import (
	"context"
	"os"
	"slices"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/service/compiledb"
)

// This file makes a what-if's headers reach the files that include them
// on clangd, which compiles includes from disk: each includer's compile
// command gets -ivfsoverlay, a virtual file system that puts the what-if's
// texts where the headers are, for as long as the impact checks them.

// overlayHeaders gives each of deps a compile command that reads headers
// (their what-if texts) through a virtual file system, and returns a
// function that gives them their commands back; the files it could not
// give one are returned.
func (s *session) overlayHeaders(ctx context.Context, c *client.Client, headers []checkFile, deps []string) (restore func(), without []string, err error) {
	root := s.rootOf(deps[0])
	db, err := compiledb.Read(root, s.o.compileCommandsDir(root))
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "lspkit-whatif-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() {
		if err := os.RemoveAll(dir); err != nil {
			s.o.log.Warn("remove a what-if's headers", "dir", dir, "err", err)
		}
	}
	texts := make(map[string]string, len(headers))
	for _, h := range headers {
		texts[h.abs] = h.src.text
	}
	vfs, err := compiledb.Overlay(dir, texts)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	original, overlaid := map[string]client.CompileCommand{}, map[string]client.CompileCommand{}
	for _, d := range deps {
		cmd, ok := compiledb.CommandFor(db, d)
		if !ok {
			without = append(without, d)
			continue
		}
		original[d] = cmd
		over := cmd
		over.CompilationCommand = slices.Insert(slices.Clone(cmd.CompilationCommand), 1, "-ivfsoverlay", vfs)
		overlaid[d] = over
	}
	if err := c.SetCompileCommands(ctx, overlaid); err != nil {
		cleanup()
		return nil, nil, err
	}
	return func() {
		ctx, cancel := context.WithTimeout(s.o.life, s.o.cfg.DiagnosticTimeout)
		defer cancel()
		if err := c.SetCompileCommands(ctx, original); err != nil && ctx.Err() == nil {
			s.o.log.Warn("give includers their compile commands back after a what-if", "server", s.spec.ID, "err", err)
		}
		cleanup()
	}, without, nil
}
