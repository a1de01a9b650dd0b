package jsonl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lspkit/lspkit/transport"
)

// TestLineLimit: a line over MaxLineBytes is refused without being held
// in memory, and the session goes on.
func TestLineLimit(t *testing.T) {
	var l lines
	l.max = 10
	var got []string
	l.feed([]byte("short\n"+strings.Repeat("x", 25)), func(b []byte, over bool) {
		if over {
			b = []byte("over:" + string(b))
		}
		got = append(got, fmt.Sprintf("%q", b))
	})
	l.feed([]byte(strings.Repeat("y", 25)+"\nok\n"), func(b []byte, over bool) {
		if over {
			b = []byte("over:" + string(b))
		}
		got = append(got, fmt.Sprintf("%q", b))
	})
	if strings.Join(got, " ") != `"short" "over:xxxxxxxxxx" "ok"` || cap(l.partial) > 16 {
		t.Errorf("lines %v, buffer %d", got, cap(l.partial))
	}
	if id, code, msg := check([]byte(`{"id":"a","params":"xx`), true); string(id) != `"a"` || code != transport.CodeInvalidRequest || msg != "message longer than 16777216 bytes" {
		t.Errorf("overlong: %d %s", code, msg)
	}
}
