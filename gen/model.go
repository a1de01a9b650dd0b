package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// model is the LSP meta model (metaModel.schema.json).
type model struct {
	MetaData      metaData       `json:"metaData"`
	Requests      []*method      `json:"requests"`
	Notifications []*method      `json:"notifications"`
	Structures    []*structure   `json:"structures"`
	Enumerations  []*enumeration `json:"enumerations"`
	TypeAliases   []*typeAlias   `json:"typeAliases"`
}

type metaData struct {
	Version string `json:"version"`
}

// docs are the documentation attributes every named element carries.
type docs struct {
	Documentation string `json:"documentation"`
	Since         string `json:"since"`
	Proposed      bool   `json:"proposed"`
	Deprecated    string `json:"deprecated"`
}

type method struct {
	docs
	Method              string `json:"method"`
	TypeName            string `json:"typeName"`
	Params              *mtype `json:"params"`
	Result              *mtype `json:"result"`
	PartialResult       *mtype `json:"partialResult"`
	RegistrationMethod  string `json:"registrationMethod"`
	RegistrationOptions *mtype `json:"registrationOptions"`
	ErrorData           *mtype `json:"errorData"`
	MessageDirection    string `json:"messageDirection"`
	ClientCapability    string `json:"clientCapability"`
	ServerCapability    string `json:"serverCapability"`

	notification bool
}

type structure struct {
	docs
	Name       string      `json:"name"`
	Extends    []*mtype    `json:"extends"`
	Mixins     []*mtype    `json:"mixins"`
	Properties []*property `json:"properties"`
}

type property struct {
	docs
	Name     string `json:"name"`
	Type     *mtype `json:"type"`
	Optional bool   `json:"optional"`
}

type enumeration struct {
	docs
	Name                 string       `json:"name"`
	Type                 *mtype       `json:"type"`
	Values               []*enumValue `json:"values"`
	SupportsCustomValues bool         `json:"supportsCustomValues"`
}

type enumValue struct {
	docs
	Name  string         `json:"name"`
	Value jsontext.Value `json:"value"`
}

type typeAlias struct {
	docs
	Name string `json:"name"`
	Type *mtype `json:"type"`
}

// mtype is a type expression of the meta model. Value is overloaded by kind
// (a map's value type, a literal's properties, or a literal value), so it is
// decoded after the kind is known.
type mtype struct {
	Kind    string         `json:"kind"`
	Name    string         `json:"name"`
	Element *mtype         `json:"element"`
	Key     *mtype         `json:"key"`
	Value   jsontext.Value `json:"value"`
	Items   []*mtype       `json:"items"`

	mapValue *mtype      // kind "map"
	literal  []*property // kind "literal"
	str      string      // kind "stringLiteral"
	num      int64       // kind "integerLiteral"
	boolean  bool        // kind "booleanLiteral"
}

var baseTypes = []string{"URI", "DocumentUri", "integer", "uinteger", "decimal", "RegExp", "string", "boolean", "null"}

// loadModel reads and validates a meta model file.
func loadModel(path string) (*model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, n := range m.Notifications {
		n.notification = true
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

// validator checks a model and finishes decoding its type expressions.
type validator struct {
	m     *model
	names map[string]string // model type name -> "structure", "enumeration" or "typeAlias"
}

func (m *model) validate() error {
	if m.MetaData.Version == "" {
		return fmt.Errorf("metaData.version: missing")
	}
	v := &validator{m: m, names: map[string]string{}}
	declare := func(path, name, what string) error {
		if name == "" {
			return fmt.Errorf("%s.name: missing", path)
		}
		if prev, ok := v.names[name]; ok {
			return fmt.Errorf("%s: name %q is already a %s", path, name, prev)
		}
		v.names[name] = what
		return nil
	}
	for i, s := range m.Structures {
		if err := declare(fmt.Sprintf("structures[%d]", i), s.Name, "structure"); err != nil {
			return err
		}
	}
	for i, e := range m.Enumerations {
		if err := declare(fmt.Sprintf("enumerations[%d]", i), e.Name, "enumeration"); err != nil {
			return err
		}
	}
	for i, a := range m.TypeAliases {
		if err := declare(fmt.Sprintf("typeAliases[%d]", i), a.Name, "typeAlias"); err != nil {
			return err
		}
	}
	for i, s := range m.Structures {
		path := fmt.Sprintf("structures[%d] (%s)", i, s.Name)
		for j, t := range append(slices.Clone(s.Extends), s.Mixins...) {
			if err := v.typ(fmt.Sprintf("%s.extends/mixins[%d]", path, j), t); err != nil {
				return err
			}
			if t.Kind != "reference" || v.names[t.Name] != "structure" {
				return fmt.Errorf("%s.extends/mixins[%d]: %s %q is not a structure reference", path, j, t.Kind, t.Name)
			}
		}
		if err := v.props(path+".properties", s.Properties); err != nil {
			return err
		}
	}
	for i, e := range m.Enumerations {
		path := fmt.Sprintf("enumerations[%d] (%s)", i, e.Name)
		if e.Type == nil || e.Type.Kind != "base" || !slices.Contains([]string{"string", "integer", "uinteger"}, e.Type.Name) {
			return fmt.Errorf("%s.type: enumerations must be of base type string, integer or uinteger", path)
		}
		seen := map[string]bool{}
		for j, ev := range e.Values {
			vp := fmt.Sprintf("%s.values[%d] (%s)", path, j, ev.Name)
			if ev.Name == "" || seen[ev.Name] {
				return fmt.Errorf("%s: missing or duplicate name", vp)
			}
			seen[ev.Name] = true
			k := ev.Value.Kind()
			if (e.Type.Name == "string") != (k == '"') || (k != '"' && k != '0') {
				return fmt.Errorf("%s.value: %s does not fit the enumeration type %s", vp, ev.Value, e.Type.Name)
			}
		}
	}
	for i, a := range m.TypeAliases {
		if err := v.typ(fmt.Sprintf("typeAliases[%d] (%s).type", i, a.Name), a.Type); err != nil {
			return err
		}
	}
	methods := map[string]bool{}
	for _, group := range []struct {
		name string
		list []*method
	}{{"requests", m.Requests}, {"notifications", m.Notifications}} {
		for i, r := range group.list {
			path := fmt.Sprintf("%s[%d] (%s)", group.name, i, r.Method)
			if r.Method == "" || methods[r.Method] {
				return fmt.Errorf("%s.method: missing or duplicate", path)
			}
			methods[r.Method] = true
			if !slices.Contains([]string{"clientToServer", "serverToClient", "both"}, r.MessageDirection) {
				return fmt.Errorf("%s.messageDirection: unknown direction %q", path, r.MessageDirection)
			}
			if !r.notification && r.Result == nil {
				return fmt.Errorf("%s.result: missing", path)
			}
			for _, part := range []struct {
				name string
				t    *mtype
			}{{"params", r.Params}, {"result", r.Result}, {"partialResult", r.PartialResult}, {"registrationOptions", r.RegistrationOptions}, {"errorData", r.ErrorData}} {
				if part.t == nil {
					continue
				}
				if err := v.typ(path+"."+part.name, part.t); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (v *validator) props(path string, props []*property) error {
	seen := map[string]bool{}
	for i, p := range props {
		pp := fmt.Sprintf("%s[%d] (%s)", path, i, p.Name)
		if p.Name == "" || seen[p.Name] {
			return fmt.Errorf("%s: missing or duplicate property name", pp)
		}
		seen[p.Name] = true
		if err := v.typ(pp+".type", p.Type); err != nil {
			return err
		}
	}
	return nil
}

// typ validates one type expression and decodes its kind-specific value.
func (v *validator) typ(path string, t *mtype) error {
	if t == nil {
		return fmt.Errorf("%s: missing type", path)
	}
	switch t.Kind {
	case "base":
		if !slices.Contains(baseTypes, t.Name) {
			return fmt.Errorf("%s: unknown base type %q", path, t.Name)
		}
	case "reference":
		if _, ok := v.names[t.Name]; !ok {
			return fmt.Errorf("%s: reference to undefined type %q", path, t.Name)
		}
	case "array":
		return v.typ(path+".element", t.Element)
	case "map":
		if err := v.typ(path+".key", t.Key); err != nil {
			return err
		}
		if !v.stringKey(t.Key) {
			return fmt.Errorf("%s.key: map keys must be string-like, not %s %s", path, t.Key.Kind, t.Key.Name)
		}
		t.mapValue = new(mtype)
		if err := json.Unmarshal(t.Value, t.mapValue); err != nil {
			return fmt.Errorf("%s.value: %w", path, err)
		}
		return v.typ(path+".value", t.mapValue)
	case "and", "or", "tuple":
		if len(t.Items) == 0 {
			return fmt.Errorf("%s.items: %s type without items", path, t.Kind)
		}
		for i, it := range t.Items {
			if err := v.typ(fmt.Sprintf("%s.items[%d]", path, i), it); err != nil {
				return err
			}
			if t.Kind == "and" && (it.Kind != "reference" || v.names[it.Name] != "structure") {
				return fmt.Errorf("%s.items[%d]: \"and\" types may only combine structure references", path, i)
			}
		}
	case "literal":
		var lit struct {
			Properties []*property `json:"properties"`
		}
		if err := json.Unmarshal(t.Value, &lit); err != nil {
			return fmt.Errorf("%s.value: %w", path, err)
		}
		t.literal = lit.Properties
		return v.props(path+".value.properties", t.literal)
	case "stringLiteral":
		if err := json.Unmarshal(t.Value, &t.str); err != nil {
			return fmt.Errorf("%s.value: %w", path, err)
		}
	case "integerLiteral":
		if err := json.Unmarshal(t.Value, &t.num); err != nil {
			return fmt.Errorf("%s.value: %w", path, err)
		}
	case "booleanLiteral":
		if err := json.Unmarshal(t.Value, &t.boolean); err != nil {
			return fmt.Errorf("%s.value: %w", path, err)
		}
	default:
		return fmt.Errorf("%s: unknown type kind %q", path, t.Kind)
	}
	return nil
}

// stringKey reports whether t is usable as a JSON object key.
func (v *validator) stringKey(t *mtype) bool {
	switch t.Kind {
	case "base":
		return t.Name == "string" || t.Name == "URI" || t.Name == "DocumentUri" || t.Name == "integer"
	case "reference":
		for _, a := range v.m.TypeAliases {
			if a.Name == t.Name {
				return v.stringKey(a.Type)
			}
		}
	}
	return false
}
