package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
)

// StrictSchemaProblems lists what a strict validator rejects in a tool's
// JSON schema (as tools/list sends it, or as the Go value that encodes to
// it): a schema without a concrete type (true, {}, or no "type" and no
// $ref), a type that is not a JSON Schema type, a required property that
// is not defined, and a $ref to a definition that is not there. Problems
// are named by their JSON pointer.
func StrictSchemaProblems(schema any) []string {
	raw, err := json.Marshal(schema)
	if err != nil {
		return []string{fmt.Sprintf("does not encode: %v", err)}
	}
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return []string{fmt.Sprintf("is not JSON: %v", err)}
	}
	var problems []string
	var walk func(s any, at string)
	walk = func(s any, at string) {
		obj, ok := s.(map[string]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: %s is not a schema object", at, compact(s)))
			return
		}
		if ref, ok := obj["$ref"].(string); ok {
			if !resolves(root, ref) {
				problems = append(problems, fmt.Sprintf("%s: $ref %q is not defined", at, ref))
			}
			return
		}
		if obj["not"] != nil && len(obj) == 1 {
			return // {"not": {}}: nothing allowed
		}
		if branches, ok := obj["anyOf"].([]any); ok && obj["type"] == nil {
			for i, b := range branches {
				walk(b, fmt.Sprintf("%s/anyOf/%d", at, i))
			}
			return
		}
		types, ok := typesOf(obj["type"])
		if len(types) > 1 {
			problems = append(problems, fmt.Sprintf("%s: a list of types %v (one-type dialects reject it: use anyOf)", at, types))
		}
		if !ok || len(types) == 0 {
			problems = append(problems, fmt.Sprintf("%s: no concrete type (%s)", at, compact(s)))
			return
		}
		for _, t := range types {
			if !slices.Contains([]string{"string", "integer", "number", "boolean", "object", "array", "null"}, t) {
				problems = append(problems, fmt.Sprintf("%s: unknown type %q", at, t))
			}
		}
		props, _ := obj["properties"].(map[string]any)
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			walk(props[name], at+"/properties/"+name)
		}
		if req, ok := obj["required"].([]any); ok {
			for _, r := range req {
				if name, _ := r.(string); props[name] == nil {
					problems = append(problems, fmt.Sprintf("%s: required %q is not a property", at, r))
				}
			}
		}
		if slices.Contains(types, "array") {
			if items, ok := obj["items"]; ok {
				walk(items, at+"/items")
			} else {
				problems = append(problems, fmt.Sprintf("%s: an array without items", at))
			}
		}
		if ap, ok := obj["additionalProperties"].(map[string]any); ok {
			walk(ap, at+"/additionalProperties")
		}
		defs, _ := obj["$defs"].(map[string]any)
		for name, d := range defs {
			walk(d, at+"/$defs/"+name)
		}
	}
	walk(root, "#")
	return problems
}

// typesOf reads a schema's "type": a string or a list of strings.
func typesOf(v any) ([]string, bool) {
	switch t := v.(type) {
	case string:
		return []string{t}, true
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// resolves reports whether ref ("#/$defs/name") names a definition of root.
func resolves(root any, ref string) bool {
	const prefix = "#/$defs/"
	if len(ref) <= len(prefix) || ref[:len(prefix)] != prefix {
		return false
	}
	obj, _ := root.(map[string]any)
	defs, _ := obj["$defs"].(map[string]any)
	return defs[ref[len(prefix):]] != nil
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}
