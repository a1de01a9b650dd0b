package api

import (
	"errors"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/transport"
)

// FuzzDecode: whatever params a client sends, decoding them into any
// method's params type never panics, and fails only with invalid params.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"filePath":"a.go","text":"x","timeoutMs":5,"severities":["error"],"delta":true}`,
		`{"file":"a.go","line":1,"character":2,"symbol":"f"}`, `{"afterEpoch":3,"waitMs":10}`,
		`{"filePath":"a.go","mode":"write"}`, `{"query":"x"}`, `null`, `[]`, `{"filePath":1}`, `{"line":1e40}`,
		`{"filePath":"a\u0000b"}`, `{"text":"\ud800"}`, `{"a":` + "[[[[[[[[[[" + `}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		check := func(err error) {
			if err == nil {
				return
			}
			var e *transport.Error
			if !errors.As(err, &e) || e.Code != transport.CodeInvalidParams {
				t.Fatalf("%q: %v", raw, err)
			}
		}
		v := jsontext.Value(raw)
		_, err := Decode[CheckParams]("lsp/check", v, "filePath")
		check(err)
		_, err = Decode[PositionParams]("textDocument/definition", v, "file", "line")
		check(err)
		_, err = Decode[DiagnosticsAfterParams]("lsp/diagnosticsAfter", v, "afterEpoch")
		check(err)
		_, err = Decode[ReportParams]("lsp/report", v, "filePath", "mode")
		check(err)
		_, err = Decode[FileParams]("textDocument/documentSymbol", v, "file")
		check(err)
		_, err = Decode[QueryParams]("workspace/symbol", v, "query")
		check(err)
	})
}
