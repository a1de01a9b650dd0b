// Package corpus generates the framed LSP traffic lspkit's benchmark
// modules (bench and bench/typed) read: the same bytes for every
// implementation they compare.
package corpus

import (
	"bytes"
	"fmt"
	"strings"
)

// A Corpus is a stream of framed LSP messages.
type Corpus struct {
	Name     string
	Stream   []byte // Content-Length framed messages, back to back
	Messages int
}

func frameInto(buf *bytes.Buffer, body string) {
	fmt.Fprintf(buf, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

// Progress is 10,000 small $/progress notifications, as a server sends while
// indexing.
func Progress() Corpus {
	var buf bytes.Buffer
	n := 10000
	for i := 0; i < n; i++ {
		var value string
		switch i % 100 {
		case 0:
			value = `{"kind":"begin","title":"Indexing","cancellable":false,"percentage":0}`
		case 99:
			value = `{"kind":"end","message":"done"}`
		default:
			value = fmt.Sprintf(`{"kind":"report","message":"%d/100 packages","percentage":%d}`, i%100, i%100)
		}
		frameInto(&buf, fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"%d","value":%s}}`, 1000+i/100, value))
	}
	return Corpus{Name: "progress", Stream: buf.Bytes(), Messages: n}
}

// Mixed is 3,000 messages in the proportions an editor session sees:
// publishDiagnostics notifications (0 to 20 diagnostics each), hover
// responses with markdown, and $/progress notifications.
func Mixed() Corpus {
	var buf bytes.Buffer
	n := 3000
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			var diags []string
			for d := 0; d < i%21; d++ {
				diags = append(diags, fmt.Sprintf(`{"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}},"severity":%d,"code":%d,"source":"ts","message":"Argument of type 'string' is not assignable to parameter of type 'number'. (%d)"}`,
					d*7, d%30, d*7, d%30+9, 1+d%4, 2345+d, d))
			}
			frameInto(&buf, fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///home/dev/project/src/module%d/file.ts","version":%d,"diagnostics":[%s]}}`, i%40, i, strings.Join(diags, ",")))
		case 1:
			doc := strings.Repeat("Returns the sum of the given numbers, rounding \\\"half to even\\\" when needed.\\n", 1+i%6)
			frameInto(&buf, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"contents":{"kind":"markdown","value":"`+"```"+`typescript\nfunction sum(...values: number[]): number\n`+"```"+`\n\n%s"},"range":{"start":{"line":%d,"character":4},"end":{"line":%d,"character":7}}}}`, i, doc, i%500, i%500))
		default:
			frameInto(&buf, fmt.Sprintf(`{"jsonrpc":"2.0","method":"$/progress","params":{"token":"tsc-%d","value":{"kind":"report","message":"Checking file %d","percentage":%d}}}`, i%7, i, i%100))
		}
	}
	return Corpus{Name: "mixed", Stream: buf.Bytes(), Messages: n}
}

// Large is 8 responses of about 512 KiB each: a completion list of about
// 1,400 items, as servers send for a broad prefix.
func Large() Corpus {
	var buf bytes.Buffer
	n := 8
	for i := 0; i < n; i++ {
		var body strings.Builder
		fmt.Fprintf(&body, `{"jsonrpc":"2.0","id":%d,"result":{"isIncomplete":true,"items":[`, 100+i)
		for item := 0; body.Len() < 512<<10-400; item++ {
			if item > 0 {
				body.WriteByte(',')
			}
			fmt.Fprintf(&body, `{"label":"identifier%d","kind":%d,"detail":"func(ctx context.Context, name string) (*Result%d, error)","documentation":{"kind":"markdown","value":"Identifier %d does things \u00e9 \"quoted\"."},"sortText":"%08d","textEdit":{"range":{"start":{"line":12,"character":4},"end":{"line":12,"character":9}},"newText":"identifier%d"}}`,
				item, 1+item%25, item, item, item, item)
		}
		body.WriteString(`]}}`)
		frameInto(&buf, body.String())
	}
	return Corpus{Name: "large", Stream: buf.Bytes(), Messages: n}
}

// Diagnostics200 is one textDocument/publishDiagnostics notification with
// 200 diagnostics, some with related information and tags, as a server
// sends for a file with many errors.
func Diagnostics200() Corpus {
	var diags []string
	for d := 0; d < 200; d++ {
		extra := ""
		if d%5 == 0 {
			extra += fmt.Sprintf(`,"relatedInformation":[{"location":{"uri":"file:///home/dev/project/src/types.ts","range":{"start":{"line":%d,"character":2},"end":{"line":%d,"character":9}}},"message":"The expected type comes from property 'count' which is declared here on type 'Options'"}]`, d, d)
		}
		if d%7 == 0 {
			extra += `,"tags":[1]`
		}
		diags = append(diags, fmt.Sprintf(`{"range":{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}},"severity":%d,"code":%d,"source":"ts","message":"Type 'string' is not assignable to type 'number'. (%d)"%s}`,
			d*3, d%40, d*3, d%40+12, 1+d%4, 2300+d%50, d, extra))
	}
	var buf bytes.Buffer
	frameInto(&buf, `{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"file:///home/dev/project/src/index.ts","version":7,"diagnostics":[`+strings.Join(diags, ",")+`]}}`)
	return Corpus{Name: "diagnostics200", Stream: buf.Bytes(), Messages: 1}
}

// Symbols512K is one workspace/symbol response of about 512 KiB: symbol
// information with locations and container names, as a server answers a
// broad query on a large project.
func Symbols512K() Corpus {
	var body strings.Builder
	body.WriteString(`{"jsonrpc":"2.0","id":42,"result":[`)
	for i := 0; body.Len() < 512<<10-300; i++ {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"name":"HandleRequest%d","kind":%d,"location":{"uri":"file:///home/dev/project/internal/server/handler%d.go","range":{"start":{"line":%d,"character":5},"end":{"line":%d,"character":19}}},"containerName":"server.(*Handler%d)"}`,
			i, 5+i%20, i%97, 10+i%900, 10+i%900, i%31)
	}
	body.WriteString(`]}`)
	var buf bytes.Buffer
	frameInto(&buf, body.String())
	return Corpus{Name: "symbols512k", Stream: buf.Bytes(), Messages: 1}
}

// Corpora returns the corpora of the envelope benchmark (bench).
func Corpora() []Corpus { return []Corpus{Progress(), Mixed(), Large()} }
