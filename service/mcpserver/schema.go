package mcpserver

import (
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/lspkit/lspkit/service/api"
)

// schemaTypes are the schemas of the Go types that inference cannot type
// by itself: a diagnostic's code (a string or an integer, as the LSP
// says) and the recursive document symbol, which refers to its
// definition.
var schemaTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[any]():        {AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "integer"}}},
	reflect.TypeFor[api.Symbol](): {Ref: "#/$defs/symbol"},
}

// schemaOf is the JSON schema of T as a tool's input or output: every
// property has a concrete type. A schema that refers to the symbol
// definition carries it.
func schemaOf[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: schemaTypes})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of %v: %v", reflect.TypeFor[T](), err)) // a programming error, caught by every test
	}
	if refersTo(s, "#/$defs/symbol") {
		s.Defs = map[string]*jsonschema.Schema{"symbol": symbolSchema()}
	}
	singleTypes(s)
	return s
}

// singleTypes rewrites type lists, which clients that map schemas onto a
// one-type dialect reject: a slice's or map's ["null", "array"|"object"]
// becomes its one type (the tools never send null for them), any other
// list becomes anyOf branches of one type each (a hover's null or string).
func singleTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	switch {
	case len(s.Types) == 2 && s.Types[0] == "null" && (s.Types[1] == "array" || s.Types[1] == "object"):
		s.Type, s.Types = s.Types[1], nil
	case len(s.Types) > 1:
		for _, t := range s.Types {
			s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Type: t})
		}
		s.Types = nil
	}
	for _, p := range s.Properties {
		singleTypes(p)
	}
	for _, d := range s.Defs {
		singleTypes(d)
	}
	for _, b := range s.AnyOf {
		singleTypes(b)
	}
	singleTypes(s.Items)
	singleTypes(s.AdditionalProperties)
}

// symbolSchema is api.Symbol's schema; children refer back to it.
func symbolSchema() *jsonschema.Schema {
	rng, err := jsonschema.For[api.Range](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: schema of api.Range: %v", err))
	}
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"name":     {Type: "string", Description: "the symbol's name"},
			"kind":     {Type: "string", Description: "function, method, class, variable, …"},
			"detail":   {Type: "string", Description: "more about it, such as its signature"},
			"range":    rng,
			"children": {Type: "array", Items: &jsonschema.Schema{Ref: "#/$defs/symbol"}, Description: "the symbols it contains"},
		},
		PropertyOrder:        []string{"name", "kind", "detail", "range", "children"},
		Required:             []string{"name", "kind", "range"},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

// refersTo reports whether s or a schema in it refers to ref.
func refersTo(s *jsonschema.Schema, ref string) bool {
	if s == nil {
		return false
	}
	if s.Ref == ref {
		return true
	}
	for _, p := range s.Properties {
		if refersTo(p, ref) {
			return true
		}
	}
	return refersTo(s.Items, ref) || refersTo(s.AdditionalProperties, ref)
}
