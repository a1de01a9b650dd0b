package hostconfig

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
	"github.com/tailscale/hujson"
)

// mergeJSON puts e's entry into old, a JSON (with comments) file, leaving
// every other byte as it is; old is empty for a new file.
func mergeJSON(old []byte, e edit, force bool) ([]byte, string, error) {
	fresh := len(bytes.TrimSpace(old)) == 0
	src := old
	if fresh {
		src = []byte(e.initial)
		if len(src) == 0 {
			src = []byte("{}")
		}
	}
	v, err := hujson.Parse(src)
	if err != nil {
		return nil, "", fmt.Errorf("does not parse, left as it is: %s", strings.TrimPrefix(err.Error(), "hujson: "))
	}
	if _, ok := v.Value.(*hujson.Object); !ok {
		return nil, "", errors.New("does not hold a JSON object, left as it is")
	}
	want, err := json.Marshal(e.value, json.Deterministic(true))
	if err != nil {
		return nil, "", err
	}
	if e.remove {
		return removeJSON(src, v, e, force)
	}
	var ops []map[string]any
	action := "added"
	// The deepest member of e.path that exists; the rest is added whole.
	depth := 0
	for depth < len(e.path) && v.Find(pointer(e.path[:depth+1])) != nil {
		depth++
	}
	for i := range min(depth, len(e.path)-1) { // the containers on the way
		if _, ok := v.Find(pointer(e.path[:i+1])).Value.(*hujson.Object); !ok {
			return nil, "", fmt.Errorf("%s is not an object, left as it is", strings.Join(e.path[:i+1], "."))
		}
	}
	switch {
	case depth < len(e.path):
		var value any = jsontext.Value(want)
		if e.appendTo {
			value = []any{value}
		}
		for i := len(e.path) - 1; i > depth; i-- {
			value = map[string]any{e.path[i]: value}
		}
		ops = append(ops, map[string]any{"op": "add", "path": pointer(e.path[:depth+1]), "value": value})
	case e.appendTo:
		list, ok := v.Find(pointer(e.path)).Value.(*hujson.Array)
		if !ok {
			return nil, "", fmt.Errorf("%s is not a list, left as it is", strings.Join(e.path, "."))
		}
		at := -1
		for i, el := range list.Elements {
			if sameJSON(el, want) {
				return src, "unchanged", nil
			}
			if e.ours != "" && strings.Contains(standard(el), e.ours) {
				at = i
			}
		}
		if at < 0 {
			ops = append(ops, map[string]any{"op": "add", "path": pointer(e.path) + "/-", "value": jsontext.Value(want)})
			break
		}
		if !force {
			return nil, "", fmt.Errorf("%w at %s[%d]: %s (--force replaces it)", ErrDifferentEntry, strings.Join(e.path, "."), at, standard(list.Elements[at]))
		}
		ops, action = append(ops, map[string]any{"op": "replace", "path": fmt.Sprintf("%s/%d", pointer(e.path), at), "value": jsontext.Value(want)}), "replaced"
	default:
		cur := v.Find(pointer(e.path))
		if sameJSON(*cur, want) {
			return src, "unchanged", nil
		}
		if !force {
			return nil, "", fmt.Errorf("%w at %s: %s (--force replaces it)", ErrDifferentEntry, strings.Join(e.path, "."), standard(*cur))
		}
		ops, action = append(ops, map[string]any{"op": "replace", "path": pointer(e.path), "value": jsontext.Value(want)}), "replaced"
	}
	patch, err := json.Marshal(ops, json.Deterministic(true))
	if err != nil {
		return nil, "", err
	}
	if err := v.Patch(patch); err != nil {
		return nil, "", err
	}
	out := v.Pack()
	if fresh { // nothing of the user's to keep: written indented
		out = indentJSON(out)
	}
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return out, action, nil
}

// removeJSON takes lspkit's element (one holding e.ours) out of the array
// at e.path in v, parsed from src: unchanged when there is none; refused
// without force.
func removeJSON(src []byte, v hujson.Value, e edit, force bool) ([]byte, string, error) {
	found := v.Find(pointer(e.path))
	if found == nil {
		return src, "unchanged", nil
	}
	list, ok := found.Value.(*hujson.Array)
	if !ok {
		return nil, "", fmt.Errorf("%s is not a list, left as it is", strings.Join(e.path, "."))
	}
	at := slices.IndexFunc(list.Elements, func(el hujson.Value) bool { return strings.Contains(standard(el), e.ours) })
	if at < 0 {
		return src, "unchanged", nil
	}
	if !force {
		return nil, "", fmt.Errorf("%w at %s[%d], which this init leaves out: %s (--force removes it)", ErrDifferentEntry, strings.Join(e.path, "."), at, standard(list.Elements[at]))
	}
	patch, err := json.Marshal([]map[string]any{{"op": "remove", "path": fmt.Sprintf("%s/%d", pointer(e.path), at)}})
	if err != nil {
		return nil, "", err
	}
	if err := v.Patch(patch); err != nil {
		return nil, "", err
	}
	out := v.Pack()
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return out, "replaced", nil
}

// indentJSON is data indented by two spaces, ending in a newline, or data
// as it is if it is not plain JSON.
func indentJSON(data []byte) []byte {
	plain := jsontext.Value(bytes.Clone(data))
	if err := plain.Indent(jsontext.WithIndent("  ")); err != nil {
		return data
	}
	return append(plain, '\n')
}

// pointer is the JSON pointer of path.
func pointer(path []string) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(p))
	}
	return b.String()
}

// standard is v as plain JSON, for a message.
func standard(v hujson.Value) string {
	v = v.Clone()
	v.Standardize()
	v.Minimize()
	return string(v.Pack())
}

// sameJSON says whether v holds want's value.
func sameJSON(v hujson.Value, want []byte) bool {
	var a, b any
	return json.Unmarshal([]byte(standard(v)), &a) == nil && json.Unmarshal(want, &b) == nil && reflect.DeepEqual(a, b)
}

// mergeTOML puts e's entry into old, a TOML file, leaving every other byte
// as it is: a new table at the end, or with force the old table's lines
// replaced.
func mergeTOML(old []byte, e edit, force bool) ([]byte, string, error) {
	var doc map[string]any
	if err := toml.Unmarshal(old, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, "", fmt.Errorf("does not parse, left as it is: line %d, column %d: %s", row, col, de.Error())
		}
		return nil, "", fmt.Errorf("does not parse, left as it is: %w", err)
	}
	body, err := toml.Marshal(e.value)
	if err != nil {
		return nil, "", err
	}
	var want map[string]any
	if err := toml.Unmarshal(body, &want); err != nil {
		return nil, "", err
	}
	table := "[" + strings.Join(e.path, ".") + "]\n" + string(body)
	cur, found := lookup(doc, e.path)
	switch {
	case !found:
		out := bytes.Clone(old)
		if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, '\n')
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		return append(out, table...), "added", nil
	case reflect.DeepEqual(cur, any(want)):
		return old, "unchanged", nil
	case !force:
		shown, _ := toml.Marshal(cur)
		return nil, "", fmt.Errorf("%w at %s: %s (--force replaces it)", ErrDifferentEntry, strings.Join(e.path, "."), strings.TrimSpace(strings.ReplaceAll(string(shown), "\n", "; ")))
	}
	start, end, ok := tableSpan(old, e.path)
	if !ok {
		return nil, "", fmt.Errorf("%w at %s, written in a form lspkit does not rewrite (not a [%s] table): edit it by hand", ErrDifferentEntry, strings.Join(e.path, "."), strings.Join(e.path, "."))
	}
	// The blank lines before the next table stay where they are.
	for end > start && end < len(old) {
		prev := bytes.LastIndexByte(old[:end-1], '\n') + 1
		if len(bytes.TrimSpace(old[prev:end])) != 0 {
			break
		}
		end = prev
	}
	out := append(append(bytes.Clone(old[:start]), table...), old[end:]...)
	return out, "replaced", nil
}

// lookup is the value at path in doc.
func lookup(doc map[string]any, path []string) (any, bool) {
	var cur any = doc
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// tableSpan is the byte range of the table [path] in doc — its header line
// up to the next header that is not one of its subtables — if it is
// written as a table.
func tableSpan(doc []byte, path []string) (int, int, bool) {
	p := unstable.Parser{KeepComments: false}
	p.Reset(doc)
	start := -1
	for p.NextExpression() {
		n := p.Expression()
		if n.Kind != unstable.Table && n.Kind != unstable.ArrayTable {
			continue
		}
		var key []string
		first := -1
		it := n.Key()
		for it.Next() {
			k := it.Node()
			key = append(key, string(k.Data))
			if first < 0 {
				first = int(k.Raw.Offset)
			}
		}
		at := bytes.LastIndexByte(doc[:first], '\n') + 1 // the header's line
		switch {
		case start < 0 && n.Kind == unstable.Table && slicesEqual(key, path):
			start = at
		case start >= 0 && !(len(key) > len(path) && slicesEqual(key[:len(path)], path)):
			return start, at, true
		}
	}
	if p.Error() != nil || start < 0 {
		return 0, 0, false
	}
	return start, len(doc), true
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// tomlQuote is s as a TOML basic string.
func tomlQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// wholeFile is e.whole as the file's content: unchanged when it is that
// already; a file there that is not lspkit's (it does not begin with
// pluginMarker) or another version of lspkit's is refused without force.
func wholeFile(old []byte, exists bool, e edit, force bool) ([]byte, string, error) {
	switch {
	case !exists:
		return []byte(e.whole), "created", nil
	case string(old) == e.whole:
		return old, "unchanged", nil
	case !force && !bytes.HasPrefix(old, []byte(pluginMarker)):
		return nil, "", fmt.Errorf("%w: a file of yours is there (--force replaces it)", ErrDifferentEntry)
	case !force:
		return nil, "", fmt.Errorf("%w: another version of lspkit's plugin is there (--force replaces it)", ErrDifferentEntry)
	}
	return []byte(e.whole), "replaced", nil
}
