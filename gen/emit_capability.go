package main

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

// capabilities emits ServerCapabilities.Supports: for every method with a
// server capability path in the model, code that follows the path through
// the generated types (pointers, unions, options structs) and answers
// whether the server announced it.
func (e *emitter) capabilities(f *jen.File) error {
	caps := e.r.byModel["ServerCapabilities"]
	if caps == nil || caps.kind != dStruct {
		return nil // a model without capabilities (a test model)
	}
	var cases []jen.Code
	for _, me := range e.allMethods() {
		if me.ServerCapability == "" {
			continue
		}
		vars := 0
		body, _, err := capCheck(&gtype{kind: gkNamed, decl: caps}, jen.Id("c"), strings.Split(me.ServerCapability, "."), &vars)
		if err != nil {
			return fmt.Errorf("%s: serverCapability %s: %w", me.Method, me.ServerCapability, err)
		}
		cases = append(cases, jen.Case(jen.Id("Method"+goName(me.Method))).Block(body...))
	}
	f.Comment("Supports reports whether the capabilities announce method: the capability at the method's")
	f.Comment("ServerCapability path (MethodInfo) is present and not false. An options object counts as")
	f.Comment("support; a path that continues below a bare true (renameProvider.prepareProvider when")
	f.Comment("renameProvider is true) does not; a document sync kind counts unless it is None. Methods")
	f.Comment("without a capability path (initialize, shutdown, ...) are always supported. Dynamic")
	f.Comment("registrations are not capabilities: check them as well (the client package does).")
	f.Func().Params(jen.Id("c").Op("*").Id(caps.name)).Id("Supports").Params(jen.Id("method").String()).Bool().Block(
		jen.Switch(jen.Id("method")).Block(cases...),
		jen.Return(jen.True()))
	return nil
}

// capCheck emits statements that return whether the value expr, of type g,
// announces the capability at path below it, and whether they use expr.
func capCheck(g *gtype, expr *jen.Statement, path []string, vars *int) ([]jen.Code, bool, error) {
	switch g.kind {
	case gkPointer:
		inner, _, err := capCheck(g.elem, jen.Parens(jen.Op("*").Add(expr.Clone())), path, vars)
		if err != nil {
			return nil, false, err
		}
		return append([]jen.Code{jen.If(expr.Clone().Op("==").Nil()).Block(jen.Return(jen.False()))}, inner...), true, nil
	case gkBasic:
		switch {
		case g.basic == "bool" && len(path) == 0:
			return []jen.Code{jen.Return(expr)}, true, nil
		case g.basic == "bool":
			return []jen.Code{jen.Return(jen.False())}, false, nil // below a bare boolean
		case len(path) == 0:
			return []jen.Code{jen.Return(jen.True())}, false, nil // a registration id or a value
		}
		return nil, false, fmt.Errorf("path %s continues below a %s", strings.Join(path, "."), g.basic)
	case gkSlice, gkMap, gkRaw:
		if len(path) > 0 {
			return nil, false, fmt.Errorf("path %s continues below a list or map", strings.Join(path, "."))
		}
		return []jen.Code{jen.Return(jen.True())}, false, nil
	case gkNamed:
	default:
		return nil, false, fmt.Errorf("unexpected type kind %d", g.kind)
	}
	d := g.decl
	switch d.kind {
	case dAlias, dDefined, dExternal:
		if d.kind == dAlias && d.raw {
			return capCheck(&gtype{kind: gkRaw}, expr, path, vars)
		}
		return capCheck(d.under, expr, path, vars)
	case dEnum:
		if basics[d.enum.Type.Name] == "string" {
			return []jen.Code{jen.Return(jen.True())}, false, nil
		}
		return []jen.Code{jen.Return(expr.Clone().Op("!=").Lit(0))}, true, nil // a sync kind: None is no support
	case dStruct:
		if len(path) == 0 {
			return []jen.Code{jen.Return(jen.True())}, false, nil
		}
		for _, fd := range d.fields {
			if fd.jsonName == path[0] {
				return capCheck(fd.typ, expr.Clone().Dot(fd.goName), path[1:], vars)
			}
		}
		return nil, false, fmt.Errorf("%s has no member %s", d.name, path[0])
	case dUnion:
		out := []jen.Code{jen.If(expr.Clone().Dot("IsZero").Call()).Block(jen.Return(jen.False()))}
		for _, a := range d.alts {
			*vars++
			v := jen.Id(fmt.Sprintf("v%d", *vars))
			inner, uses, err := capCheck(a.typ, v.Clone(), path, vars)
			if err != nil {
				return nil, false, fmt.Errorf("%s alternative %s: %w", d.name, a.suffix, err)
			}
			if !uses {
				v = jen.Id("_")
			}
			out = append(out, jen.If(jen.List(v, jen.Id("ok")).Op(":=").Add(expr.Clone()).Dot("As"+a.suffix).Call(), jen.Id("ok")).Block(inner...))
		}
		return append(out, jen.Return(jen.False())), true, nil
	}
	return nil, false, fmt.Errorf("unexpected declaration %s", d.name)
}
