package hostconfig

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// This file merges an entry into a YAML file's top-level list of named
// servers (Continue's `mcpServers: [{name, command, args}]`), with
// github.com/goccy/go-yaml: it parses the file (comments included) to find
// the list and the entries in it, and the entry is then inserted as text,
// so that every other byte — comments, order, quoting, indentation — stays
// as it was.

// mergeYAMLList puts e.value (an ordered entry whose "name" is EntryName)
// into the block sequence at the top-level key e.path[0] of old; old is
// empty for a new file (e.initial is written before the list).
func mergeYAMLList(old []byte, e edit, force bool) ([]byte, string, error) {
	item, ok := e.value.(yaml.MapSlice)
	if !ok || len(e.path) != 1 {
		return nil, "", errors.New("hostconfig: a YAML entry is a MapSlice under one top-level key")
	}
	text := string(old)
	if strings.TrimSpace(text) == "" {
		body, err := itemText(item, "  ")
		if err != nil {
			return nil, "", err
		}
		return []byte(e.initial + e.path[0] + ":\n" + body), "added", nil
	}
	file, err := parser.ParseBytes(old, parser.ParseComments)
	if err != nil {
		return nil, "", fmt.Errorf("does not parse, left as it is: %s", firstLine(err.Error()))
	}
	if len(file.Docs) != 1 {
		return nil, "", errors.New("holds more than one YAML document, left as it is")
	}
	top, ok := topMapping(file.Docs[0].Body)
	if !ok {
		return nil, "", errors.New("does not hold a YAML mapping, left as it is")
	}
	lines := strings.SplitAfter(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		lines[len(lines)-1] += "\n"
	}
	for i, mv := range top {
		if mv.Key.GetToken().Value != e.path[0] {
			continue
		}
		seq, ok := mv.Value.(*ast.SequenceNode)
		if _, null := mv.Value.(*ast.NullNode); null || mv.Value == nil {
			// "mcpServers:" with nothing under it: the list starts here.
			keyLine := mv.Key.GetToken().Position.Line
			body, err := itemText(item, strings.Repeat(" ", mv.Key.GetToken().Position.Column+1))
			if err != nil {
				return nil, "", err
			}
			return []byte(strings.Join(lines[:keyLine], "") + body + strings.Join(lines[keyLine:], "")), "added", nil
		}
		if !ok || seq.IsFlowStyle {
			return nil, "", fmt.Errorf("its %q is not a block list, left as it is", e.path[0])
		}
		indent := strings.Repeat(" ", seq.Start.Position.Column-1)
		end := listEnd(lines, seq, top, i)
		for k, v := range seq.Values {
			var got map[string]any
			if err := yaml.NodeToValue(v, &got); err != nil || got["name"] != EntryName {
				continue
			}
			if sameYAML(got, item) {
				return old, "unchanged", nil
			}
			if !force {
				return nil, "", fmt.Errorf("%w at %s[%d] (run with --force to replace it)", ErrDifferentEntry, e.path[0], k)
			}
			from := seq.Entries[k].Start.Position.Line - 1
			to := end
			if k+1 < len(seq.Entries) {
				to = seq.Entries[k+1].Start.Position.Line - 1
			}
			body, err := itemText(item, indent)
			if err != nil {
				return nil, "", err
			}
			return []byte(strings.Join(lines[:from], "") + body + strings.Join(lines[to:], "")), "replaced", nil
		}
		body, err := itemText(item, indent)
		if err != nil {
			return nil, "", err
		}
		return []byte(strings.Join(lines[:end], "") + body + strings.Join(lines[end:], "")), "added", nil
	}
	body, err := itemText(item, "  ")
	if err != nil {
		return nil, "", err
	}
	return []byte(strings.Join(lines, "") + e.path[0] + ":\n" + body), "added", nil
}

// topMapping is the key-value pairs of a document's top-level mapping.
func topMapping(body ast.Node) ([]*ast.MappingValueNode, bool) {
	switch n := body.(type) {
	case *ast.MappingNode:
		return n.Values, !n.IsFlowStyle
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{n}, true
	}
	return nil, false
}

// listEnd is the index of the line after seq's last item (the top-level
// value top[i]): before the next top-level key, less the blank and comment
// lines just before it (they belong to that key), or the end of the file.
func listEnd(lines []string, seq *ast.SequenceNode, top []*ast.MappingValueNode, i int) int {
	end := len(lines)
	if i+1 < len(top) {
		end = top[i+1].Key.GetToken().Position.Line - 1
	}
	last := seq.Entries[len(seq.Entries)-1].Start.Position.Line // 1-based: the last item's first line
	for end > last {
		t := strings.TrimSpace(lines[end-1])
		if t != "" && !strings.HasPrefix(t, "#") {
			break
		}
		end--
	}
	return end
}

// itemText is item as one block-list entry at indent ("- name: …").
func itemText(item yaml.MapSlice, indent string) (string, error) {
	out, err := yaml.MarshalWithOptions(item, yaml.IndentSequence(true))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for j, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if j == 0 {
			b.WriteString(indent + "- " + line + "\n")
		} else {
			b.WriteString(indent + "  " + line + "\n")
		}
	}
	return b.String(), nil
}

// sameYAML says whether an entry read from the file is item.
func sameYAML(got map[string]any, item yaml.MapSlice) bool {
	out, err := yaml.Marshal(item)
	if err != nil {
		return false
	}
	var want map[string]any
	if err := yaml.Unmarshal(out, &want); err != nil {
		return false
	}
	return reflect.DeepEqual(got, want)
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
