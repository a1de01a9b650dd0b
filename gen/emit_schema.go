package main

import (
	"fmt"

	"github.com/dave/jennifer/jen"
)

// schema emits modelSchema: the meta model's structures (flattened),
// enumerations, type aliases and methods as the tables protocol.Validator
// reads, so that every check of a message's shape comes from the model.
func (e *emitter) schema(f *jen.File) error {
	m := e.r.m
	var body []jen.Code
	body = append(body, jen.Id("s").Op(":=").Id("newSchema").Call(
		jen.Lit(len(m.Structures)), jen.Lit(len(m.Enumerations)), jen.Lit(len(m.TypeAliases)), jen.Lit(len(m.Requests)+len(m.Notifications))))
	for _, st := range m.Structures {
		var props []jen.Code
		for _, p := range e.r.flatten(st) {
			t, err := schemaExpr(p.Type)
			if err != nil {
				return fmt.Errorf("structure %s.%s: %w", st.Name, p.Name, err)
			}
			props = append(props, jen.Id("sProp").Call(jen.Lit(p.Name), t, jen.Lit(p.Optional)))
		}
		body = append(body, jen.Id("s").Dot("structs").Index(jen.Lit(st.Name)).Op("=").Index().Id("schemaProp").Values(props...))
	}
	for _, en := range m.Enumerations {
		var values []jen.Code
		for _, v := range en.Values {
			values = append(values, jen.Lit(string(v.Value)))
		}
		body = append(body, jen.Id("s").Dot("enums").Index(jen.Lit(en.Name)).Op("=").Op("&").Id("schemaEnum").Values(jen.Dict{
			jen.Id("base"):   jen.Lit(en.Type.Name),
			jen.Id("values"): jen.Index().String().Values(values...),
			jen.Id("custom"): jen.Lit(en.SupportsCustomValues),
		}))
	}
	for _, a := range m.TypeAliases {
		t, err := schemaExpr(a.Type)
		if err != nil {
			return fmt.Errorf("type alias %s: %w", a.Name, err)
		}
		body = append(body, jen.Id("s").Dot("aliases").Index(jen.Lit(a.Name)).Op("=").Add(t))
	}
	for _, me := range e.allMethods() {
		d := jen.Dict{
			jen.Id("direction"): jen.Id(directions[me.MessageDirection]),
		}
		if me.notification {
			d[jen.Id("notification")] = jen.True()
		}
		for key, t := range map[string]*mtype{"params": me.Params, "result": me.Result, "partialResult": me.PartialResult, "errorData": me.ErrorData, "registrationOptions": me.RegistrationOptions} {
			if t == nil {
				continue
			}
			x, err := schemaExpr(t)
			if err != nil {
				return fmt.Errorf("method %s %s: %w", me.Method, key, err)
			}
			d[jen.Id(key)] = x
		}
		body = append(body, jen.Id("s").Dot("methods").Index(jen.Lit(me.Method)).Op("=").Op("&").Id("schemaMethod").Values(d))
	}
	body = append(body, jen.Return(jen.Id("s")))
	f.Comment("modelSchema returns the meta model's types and methods as tables.")
	f.Func().Id("modelSchema").Params().Op("*").Id("schema").Block(body...)
	return nil
}

// schemaExpr is the table form of a model type expression.
func schemaExpr(t *mtype) (jen.Code, error) {
	items := func() ([]jen.Code, error) {
		var out []jen.Code
		for _, it := range t.Items {
			x, err := schemaExpr(it)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	}
	switch t.Kind {
	case "base":
		return jen.Id("sBase").Call(jen.Lit(t.Name)), nil
	case "reference":
		return jen.Id("sRef").Call(jen.Lit(t.Name)), nil
	case "array":
		x, err := schemaExpr(t.Element)
		if err != nil {
			return nil, err
		}
		return jen.Id("sArray").Call(x), nil
	case "map":
		k, err := schemaExpr(t.Key)
		if err != nil {
			return nil, err
		}
		v, err := schemaExpr(t.mapValue)
		if err != nil {
			return nil, err
		}
		return jen.Id("sMap").Call(k, v), nil
	case "and", "or", "tuple":
		xs, err := items()
		if err != nil {
			return nil, err
		}
		fn := map[string]string{"and": "sAnd", "or": "sOr", "tuple": "sTuple"}[t.Kind]
		return jen.Id(fn).Call(xs...), nil
	case "literal":
		var props []jen.Code
		for _, p := range t.literal {
			x, err := schemaExpr(p.Type)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p.Name, err)
			}
			props = append(props, jen.Id("sProp").Call(jen.Lit(p.Name), x, jen.Lit(p.Optional)))
		}
		return jen.Id("sLiteral").Call(props...), nil
	case "stringLiteral":
		return jen.Id("sStringLiteral").Call(jen.Lit(t.str)), nil
	case "integerLiteral":
		return jen.Id("sIntegerLiteral").Call(jen.Lit(t.num)), nil
	case "booleanLiteral":
		return jen.Id("sBooleanLiteral").Call(jen.Lit(t.boolean)), nil
	}
	return nil, fmt.Errorf("unknown type kind %q", t.Kind)
}
