package protocol_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/protocol"
)

// The benchmarks decode the same bytes two ways: into our generated types
// with github.com/go-json-experiment/json, and with the standard library's
// encoding/json into structs shaped as gopls v0.23.0's generated protocol
// (below): the same fields and pointers, `any` where gopls has `any`, and
// gopls's union wrappers, which decode by trying each alternative in turn
// with json.Unmarshal.

// gOr and gOr3 decode like gopls's Or_ wrappers: the first alternative
// that json.Unmarshal accepts wins.
type gOr[A, B any] struct{ Value any }

func (o *gOr[A, B]) UnmarshalJSON(b []byte) error {
	return tryInOrder(b, &o.Value, tryAs[A], tryAs[B])
}

type gOr3[A, B, C any] struct{ Value any }

func (o *gOr3[A, B, C]) UnmarshalJSON(b []byte) error {
	return tryInOrder(b, &o.Value, tryAs[A], tryAs[B], tryAs[C])
}

func tryAs[T any](b []byte) (any, error) {
	var v T
	err := json.Unmarshal(b, &v)
	return v, err
}

func tryInOrder(b []byte, dst *any, alts ...func([]byte) (any, error)) error {
	if string(b) == "null" {
		*dst = nil
		return nil
	}
	for _, try := range alts {
		if v, err := try(b); err == nil {
			*dst = v
			return nil
		}
	}
	return errors.New("unmarshal failed to match one of the alternatives")
}

type (
	gPosition struct {
		Line      uint32 `json:"line"`
		Character uint32 `json:"character"`
	}
	gRange struct {
		Start gPosition `json:"start"`
		End   gPosition `json:"end"`
	}
	gLocation struct {
		URI   string `json:"uri"`
		Range gRange `json:"range"`
	}
	gDiagnostic struct {
		Range           gRange `json:"range"`
		Severity        uint32 `json:"severity,omitempty"`
		Code            any    `json:"code,omitempty"`
		CodeDescription *struct {
			Href string `json:"href"`
		} `json:"codeDescription,omitempty"`
		Source             string   `json:"source,omitempty"`
		Message            string   `json:"message"`
		Tags               []uint32 `json:"tags,omitempty"`
		RelatedInformation []struct {
			Location gLocation `json:"location"`
			Message  string    `json:"message"`
		} `json:"relatedInformation,omitempty"`
		Data *json.RawMessage `json:"data,omitempty"`
	}
	gPublishDiagnosticsParams struct {
		URI         string        `json:"uri"`
		Version     int32         `json:"version,omitempty"`
		Diagnostics []gDiagnostic `json:"diagnostics"`
	}
	gTextEdit struct {
		Range   gRange `json:"range"`
		NewText string `json:"newText"`
	}
	gInsertReplaceEdit struct {
		NewText string `json:"newText"`
		Insert  gRange `json:"insert"`
		Replace gRange `json:"replace"`
	}
	gMarkupContent struct {
		Kind  string `json:"kind"`
		Value string `json:"value"`
	}
	gCommand struct {
		Title     string            `json:"title"`
		Tooltip   string            `json:"tooltip,omitempty"`
		Command   string            `json:"command"`
		Arguments []json.RawMessage `json:"arguments,omitempty"`
	}
	gCompletionItem struct {
		Label        string `json:"label"`
		LabelDetails *struct {
			Detail      string `json:"detail,omitempty"`
			Description string `json:"description,omitempty"`
		} `json:"labelDetails,omitempty"`
		Kind                uint32                              `json:"kind,omitempty"`
		Tags                []uint32                            `json:"tags,omitempty"`
		Detail              string                              `json:"detail,omitempty"`
		Documentation       *gOr[string, gMarkupContent]        `json:"documentation,omitempty"`
		Deprecated          bool                                `json:"deprecated,omitempty"`
		Preselect           bool                                `json:"preselect,omitempty"`
		SortText            string                              `json:"sortText,omitempty"`
		FilterText          string                              `json:"filterText,omitempty"`
		InsertText          string                              `json:"insertText,omitempty"`
		InsertTextFormat    *uint32                             `json:"insertTextFormat,omitempty"`
		InsertTextMode      *uint32                             `json:"insertTextMode,omitempty"`
		TextEdit            *gOr[gInsertReplaceEdit, gTextEdit] `json:"textEdit,omitempty"`
		TextEditText        string                              `json:"textEditText,omitempty"`
		AdditionalTextEdits []gTextEdit                         `json:"additionalTextEdits,omitempty"`
		CommitCharacters    []string                            `json:"commitCharacters,omitempty"`
		Command             *gCommand                           `json:"command,omitempty"`
		Data                any                                 `json:"data,omitempty"`
	}
	gCompletionList struct {
		IsIncomplete bool `json:"isIncomplete"`
		ItemDefaults *struct {
			CommitCharacters []string                         `json:"commitCharacters,omitempty"`
			EditRange        *gOr[gRange, gInsertReplaceEdit] `json:"editRange,omitempty"`
			InsertTextFormat *uint32                          `json:"insertTextFormat,omitempty"`
			InsertTextMode   *uint32                          `json:"insertTextMode,omitempty"`
			Data             any                              `json:"data,omitempty"`
		} `json:"itemDefaults,omitempty"`
		Items []gCompletionItem `json:"items"`
	}
	gWorkDone struct {
		WorkDoneProgress bool `json:"workDoneProgress,omitempty"`
	}
	gRegistration struct {
		WorkDoneProgress bool   `json:"workDoneProgress,omitempty"`
		DocumentSelector any    `json:"documentSelector"`
		ID               string `json:"id,omitempty"`
	}
	gProvider    = gOr[bool, gWorkDone]
	gRegProvider = gOr3[bool, gWorkDone, gRegistration]
	gServerCaps  struct {
		PositionEncoding     *string `json:"positionEncoding,omitempty"`
		TextDocumentSync     any     `json:"textDocumentSync,omitempty"`
		NotebookDocumentSync any     `json:"notebookDocumentSync,omitempty"`
		CompletionProvider   *struct {
			TriggerCharacters   []string `json:"triggerCharacters,omitempty"`
			AllCommitCharacters []string `json:"allCommitCharacters,omitempty"`
			ResolveProvider     bool     `json:"resolveProvider,omitempty"`
			CompletionItem      *struct {
				LabelDetailsSupport bool `json:"labelDetailsSupport,omitempty"`
			} `json:"completionItem,omitempty"`
			WorkDoneProgress bool `json:"workDoneProgress,omitempty"`
		} `json:"completionProvider,omitempty"`
		HoverProvider         *gProvider `json:"hoverProvider,omitempty"`
		SignatureHelpProvider *struct {
			TriggerCharacters   []string `json:"triggerCharacters,omitempty"`
			RetriggerCharacters []string `json:"retriggerCharacters,omitempty"`
			WorkDoneProgress    bool     `json:"workDoneProgress,omitempty"`
		} `json:"signatureHelpProvider,omitempty"`
		DeclarationProvider       *gRegProvider `json:"declarationProvider,omitempty"`
		DefinitionProvider        *gProvider    `json:"definitionProvider,omitempty"`
		TypeDefinitionProvider    *gRegProvider `json:"typeDefinitionProvider,omitempty"`
		ImplementationProvider    *gRegProvider `json:"implementationProvider,omitempty"`
		ReferencesProvider        *gProvider    `json:"referencesProvider,omitempty"`
		DocumentHighlightProvider *gProvider    `json:"documentHighlightProvider,omitempty"`
		DocumentSymbolProvider    *gProvider    `json:"documentSymbolProvider,omitempty"`
		CodeActionProvider        any           `json:"codeActionProvider,omitempty"`
		CodeLensProvider          *struct {
			ResolveProvider bool `json:"resolveProvider,omitempty"`
		} `json:"codeLensProvider,omitempty"`
		DocumentLinkProvider *struct {
			ResolveProvider bool `json:"resolveProvider,omitempty"`
		} `json:"documentLinkProvider,omitempty"`
		ColorProvider                    *gRegProvider `json:"colorProvider,omitempty"`
		WorkspaceSymbolProvider          *gProvider    `json:"workspaceSymbolProvider,omitempty"`
		DocumentFormattingProvider       *gProvider    `json:"documentFormattingProvider,omitempty"`
		DocumentRangeFormattingProvider  *gProvider    `json:"documentRangeFormattingProvider,omitempty"`
		DocumentOnTypeFormattingProvider *struct {
			FirstTriggerCharacter string   `json:"firstTriggerCharacter"`
			MoreTriggerCharacter  []string `json:"moreTriggerCharacter,omitempty"`
		} `json:"documentOnTypeFormattingProvider,omitempty"`
		RenameProvider         any           `json:"renameProvider,omitempty"`
		FoldingRangeProvider   *gRegProvider `json:"foldingRangeProvider,omitempty"`
		SelectionRangeProvider *gRegProvider `json:"selectionRangeProvider,omitempty"`
		ExecuteCommandProvider *struct {
			Commands         []string `json:"commands"`
			WorkDoneProgress bool     `json:"workDoneProgress,omitempty"`
		} `json:"executeCommandProvider,omitempty"`
		CallHierarchyProvider      *gRegProvider `json:"callHierarchyProvider,omitempty"`
		LinkedEditingRangeProvider *gRegProvider `json:"linkedEditingRangeProvider,omitempty"`
		SemanticTokensProvider     any           `json:"semanticTokensProvider,omitempty"`
		MonikerProvider            *gRegProvider `json:"monikerProvider,omitempty"`
		TypeHierarchyProvider      *gRegProvider `json:"typeHierarchyProvider,omitempty"`
		InlineValueProvider        *gRegProvider `json:"inlineValueProvider,omitempty"`
		InlayHintProvider          any           `json:"inlayHintProvider,omitempty"`
		DiagnosticProvider         any           `json:"diagnosticProvider,omitempty"`
		InlineCompletionProvider   *gProvider    `json:"inlineCompletionProvider,omitempty"`
		Workspace                  *struct {
			WorkspaceFolders *struct {
				Supported           bool `json:"supported,omitempty"`
				ChangeNotifications any  `json:"changeNotifications,omitempty"`
			} `json:"workspaceFolders,omitempty"`
			FileOperations      any `json:"fileOperations,omitempty"`
			TextDocumentContent any `json:"textDocumentContent,omitempty"`
		} `json:"workspace,omitempty"`
		Experimental any `json:"experimental,omitempty"`
	}
	gInitializeResult struct {
		Capabilities gServerCaps `json:"capabilities"`
		ServerInfo   *struct {
			Name    string `json:"name"`
			Version string `json:"version,omitempty"`
		} `json:"serverInfo,omitempty"`
	}
)

// benchCorpus returns the three benchmark inputs: a real gopls
// InitializeResult; a PublishDiagnosticsParams of 200 diagnostics in the
// shape TypeScript and pyright send (codes, sources, related information,
// tags); and a CompletionList of 2,000 items made from gopls's real items.
func benchCorpus(tb testing.TB) (initialize, diagnostics, completion []byte) {
	tb.Helper()
	data, err := os.ReadFile("testdata/traffic/gopls.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	var items []json.RawMessage
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var tl trafficLine
		_ = json.Unmarshal(line, &tl)
		var env envelope
		_ = json.Unmarshal(tl.Message, &env)
		if tl.From != "server" || env.Result == nil {
			continue
		}
		var probe struct {
			Capabilities json.RawMessage `json:"capabilities"`
			Items        []json.RawMessage
		}
		_ = json.Unmarshal(env.Result, &probe)
		if probe.Capabilities != nil && initialize == nil {
			initialize = env.Result
		}
		if len(probe.Items) > 0 {
			items = probe.Items
		}
	}
	if initialize == nil || len(items) == 0 {
		tb.Fatal("recorded traffic lacks an initialize result or completion items")
	}
	var list bytes.Buffer
	list.WriteString(`{"isIncomplete":true,"items":[`)
	for i := 0; i < 2000; i++ {
		if i > 0 {
			list.WriteByte(',')
		}
		list.Write(items[i%len(items)])
	}
	list.WriteString(`]}`)
	completion = list.Bytes()

	var diags bytes.Buffer
	diags.WriteString(`{"uri":"file:///workspace/src/components/very/deep/module/file.ts","version":42,"diagnostics":[`)
	for i := 0; i < 200; i++ {
		if i > 0 {
			diags.WriteByte(',')
		}
		fmt.Fprintf(&diags, `{"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}},"severity":%d,"code":%d,"source":"ts","message":"Type 'string' is not assignable to type 'number'. (%d)"`, i*3, i%40, i*3, i%40+12, 1+i%4, 2300+i%50, i)
		if i%5 == 0 {
			fmt.Fprintf(&diags, `,"relatedInformation":[{"location":{"uri":"file:///workspace/src/types.ts","range":{"start":{"line":%d,"character":2},"end":{"line":%d,"character":9}}},"message":"The expected type comes from property 'count' which is declared here"}]`, i, i)
		}
		if i%7 == 0 {
			diags.WriteString(`,"tags":[1]`)
		}
		diags.WriteByte('}')
	}
	diags.WriteString(`]}`)
	return initialize, diags.Bytes(), completion
}

// TestBenchCorpusDecodes checks the benchmark inputs decode both ways, so
// the benchmarks measure successful decodes.
func TestBenchCorpusDecodes(t *testing.T) {
	ini, diags, comp := benchCorpus(t)
	for _, c := range []struct {
		name     string
		in       []byte
		ours, gp any
	}{
		{"InitializeResult", ini, new(protocol.InitializeResult), new(gInitializeResult)},
		{"PublishDiagnosticsParams", diags, new(protocol.PublishDiagnosticsParams), new(gPublishDiagnosticsParams)},
		{"CompletionList", comp, new(protocol.CompletionList), new(gCompletionList)},
	} {
		if err := jsonv2.Unmarshal(c.in, c.ours); err != nil {
			t.Errorf("%s (lspkit): %v", c.name, err)
		}
		if err := json.Unmarshal(c.in, c.gp); err != nil {
			t.Errorf("%s (encoding/json, gopls shape): %v", c.name, err)
		}
	}
	var d protocol.PublishDiagnosticsParams
	_ = jsonv2.Unmarshal(diags, &d)
	var l protocol.CompletionList
	_ = jsonv2.Unmarshal(comp, &l)
	if len(d.Diagnostics) != 200 || len(l.Items) != 2000 {
		t.Fatalf("corpus sizes: %d diagnostics, %d items", len(d.Diagnostics), len(l.Items))
	}
}

func BenchmarkDecode(b *testing.B) {
	ini, diags, comp := benchCorpus(b)
	for _, c := range []struct {
		name     string
		in       []byte
		ours, gp func() any
	}{
		{"PublishDiagnosticsParams", diags, func() any { return new(protocol.PublishDiagnosticsParams) }, func() any { return new(gPublishDiagnosticsParams) }},
		{"InitializeResult", ini, func() any { return new(protocol.InitializeResult) }, func() any { return new(gInitializeResult) }},
		{"CompletionList", comp, func() any { return new(protocol.CompletionList) }, func() any { return new(gCompletionList) }},
	} {
		b.Run(c.name+"/lspkit", func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				if err := jsonv2.Unmarshal(c.in, c.ours()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/encoding-json-gopls-shape", func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				if err := json.Unmarshal(c.in, c.gp()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
