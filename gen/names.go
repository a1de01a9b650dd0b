package main

import (
	"strings"
	"unicode"
)

// initialisms are the words spelled in capitals in Go names. This is the
// generator's only table, and it holds names, not types.
var initialisms = map[string]string{"Uri": "URI", "Id": "ID", "Url": "URL", "Json": "JSON"}

// goName turns a model identifier (camelCase, PascalCase, a method name such
// as "textDocument/didOpen" or "$/progress", or an enum value such as
// "typeParameter") into an exported Go identifier. A leading underscore marks
// a model-internal base structure; it becomes a "Base" suffix.
func goName(s string) string {
	base := false
	if strings.HasPrefix(s, "_") {
		base = true
		s = strings.TrimLeft(s, "_")
	}
	var b strings.Builder
	for _, part := range strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		for _, w := range splitWords(part) {
			w = strings.ToUpper(w[:1]) + w[1:]
			if up, ok := initialisms[w]; ok {
				w = up
			}
			b.WriteString(w)
		}
	}
	name := b.String()
	if name == "" || unicode.IsDigit(rune(name[0])) {
		name = "X" + name
	}
	if base {
		name += "Base"
	}
	return name
}

// splitWords splits a camelCase or PascalCase word at case changes, keeping
// runs of capitals together ("URIString" -> "URI", "String").
func splitWords(s string) []string {
	var words []string
	start := 0
	r := []rune(s)
	for i := 1; i < len(r); i++ {
		upper := unicode.IsUpper(r[i])
		if upper && (!unicode.IsUpper(r[i-1]) || (i+1 < len(r) && unicode.IsLower(r[i+1]))) {
			words = append(words, string(r[start:i]))
			start = i
		}
	}
	return append(words, string(r[start:]))
}

// trimSuffixes removes the first of the given suffixes that s ends with.
func trimSuffixes(s string, suffixes ...string) string {
	for _, suf := range suffixes {
		if strings.HasSuffix(s, suf) && len(s) > len(suf) {
			return strings.TrimSuffix(s, suf)
		}
	}
	return s
}
