package lspserver

import (
	"testing"

	"github.com/lspkit/lspkit/protocol"
)

// TestVersionsApply: an edit's document versions become the client's — the
// version it answered for where the client has the document open, none
// where it has not (a server names the versions lspkit gave it).
func TestVersionsApply(t *testing.T) {
	open, closed := protocol.DocumentURI("file:///w/a.go"), protocol.DocumentURI("file:///w/b.go")
	edit := func(uri protocol.DocumentURI, v int32) protocol.WorkspaceEditDocumentChangesElem {
		return protocol.NewWorkspaceEditDocumentChangesElemTextDocumentEdit(protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{URI: uri, Version: protocol.NewNullable(v)}})
	}
	e := protocol.WorkspaceEdit{DocumentChanges: []protocol.WorkspaceEditDocumentChangesElem{edit(open, 17), edit(closed, 3),
		protocol.NewWorkspaceEditDocumentChangesElemCreateFile(protocol.CreateFile{URI: "file:///w/c.go"})}}
	versions{open: 4}.apply(&e)
	a, _ := e.DocumentChanges[0].AsTextDocumentEdit()
	b, _ := e.DocumentChanges[1].AsTextDocumentEdit()
	if v, ok := a.TextDocument.Version.Get(); !ok || v != 4 {
		t.Errorf("the open document's version: %v %v, want the client's 4", v, ok)
	}
	if _, ok := b.TextDocument.Version.Get(); ok {
		t.Errorf("the closed document's version: %+v, want null", b.TextDocument.Version)
	}
	if _, ok := e.DocumentChanges[2].AsCreateFile(); !ok {
		t.Errorf("the file creation was changed: %+v", e.DocumentChanges[2])
	}
}
