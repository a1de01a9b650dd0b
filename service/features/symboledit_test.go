package features

import "testing"

// TestScanCode: the body found in a symbol's text — the last top-level
// brace group that ends it, past braces in parameter and result types,
// strings and comments; a Python header's colon past annotations,
// defaults and strings.
func TestScanCode(t *testing.T) {
	for _, tc := range []struct {
		code   string
		python bool
		want   string // the code from the index found; "" for none
	}{
		{"func F(x struct{}) struct{ a int } {\n\treturn struct{ a int }{}\n}", false, "{\n\treturn struct{ a int }{}\n}"},
		{"function f(a: {x: number}): {y: string} { return {y: \"}\"}; }", false, "{ return {y: \"}\"}; }"},
		{"int f(void) { /* } */ return '}'; // }\n}", false, "{ /* } */ return '}'; // }\n}"},
		{"const f = () => { return 1 };", false, "{ return 1 };"},
		{"n = 0;", false, ""},
		{"def f(x: dict[str, int] = {\"a:\": 1}, y=lambda: 2) -> int:\n    return 1", true, ":\n    return 1"},
		{"def g(s='#:'):  # a comment: here\n    pass", true, ":  # a comment: here\n    pass"},
		{"class C(Base):\n    x = 1", true, ":\n    x = 1"},
	} {
		i := scanCode(tc.code, tc.python)
		got := ""
		if i >= 0 {
			got = tc.code[i:]
		}
		if got != tc.want {
			t.Errorf("scanCode(%q, %v) = %q, want %q", tc.code, tc.python, got, tc.want)
		}
	}
}
