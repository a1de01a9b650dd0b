package transport

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkValidate validates payloads shaped like LSP traffic: a diagnostics
// batch (numbers and short strings) and a completion list (longer strings).
func BenchmarkValidate(b *testing.B) {
	var diags, items []string
	for i := 0; i < 50; i++ {
		diags = append(diags, fmt.Sprintf(`{"range":{"start":{"line":%d,"character":4},"end":{"line":%d,"character":19}},"severity":1,"code":2345,"source":"ts","message":"Argument of type 'string' is not assignable to parameter of type 'number'."}`, i, i))
		items = append(items, fmt.Sprintf(`{"label":"identifier%d","kind":3,"detail":"func(ctx context.Context, name string) (*Result, error)","documentation":{"kind":"markdown","value":"Identifier does things with \"quotes\" and unicode é."},"sortText":"%08d"}`, i, i))
	}
	for _, c := range []struct{ name, payload string }{
		{"diagnostics", `{"uri":"file:///a.ts","diagnostics":[` + strings.Join(diags, ",") + `]}`},
		{"completion", `{"isIncomplete":false,"items":[` + strings.Join(items, ",") + `]}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			p := []byte(c.payload)
			b.SetBytes(int64(len(p)))
			b.ReportAllocs()
			for b.Loop() {
				if err := Validate(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
