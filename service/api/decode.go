package api

import (
	"errors"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/transport"
)

// Decode decodes a request's params into P: an object (absent params are
// {}), with every required member present and not null, and every member
// of the type P gives it. Problems are -32602 errors naming the member.
func Decode[P any](method string, raw jsontext.Value, required ...string) (P, error) {
	var p P
	if len(raw) == 0 || string(raw) == "null" {
		raw = jsontext.Value("{}")
	}
	if raw.Kind() != '{' {
		return p, transport.Errorf(transport.CodeInvalidParams, "%s: params must be an object", method)
	}
	var members map[string]jsontext.Value
	if err := json.Unmarshal(raw, &members); err != nil {
		return p, transport.Errorf(transport.CodeInvalidParams, "%s: params: %v", method, err)
	}
	for _, name := range required {
		if v, ok := members[name]; !ok || string(v) == "null" {
			return p, transport.Errorf(transport.CodeInvalidParams, "%s: params.%s: missing (%s is required)", method, name, expected(p, name))
		}
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		var se *json.SemanticError
		if errors.As(err, &se) && se.JSONPointer != "" {
			field := string(se.JSONPointer)[1:]
			return p, transport.Errorf(transport.CodeInvalidParams, "%s: params.%s: expected %s, got %s", method, field, expected(p, field), describe(members[field]))
		}
		return p, transport.Errorf(transport.CodeInvalidParams, "%s: params: %v", method, err)
	}
	return p, nil
}

// expected names the JSON kind the member name of P takes.
func expected(p any, name string) string {
	t := reflect.TypeOf(p)
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag != name {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.String:
			return "a string"
		case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Uint32:
			return "an integer"
		case reflect.Bool:
			return "true or false"
		}
	}
	return "a value"
}

// describe names a JSON value's kind for error messages.
func describe(raw jsontext.Value) string {
	switch raw.Kind() {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string " + clip(string(raw))
	case '0':
		return "the number " + clip(string(raw))
	case 't', 'f':
		return "the boolean " + string(raw)
	case 'n':
		return "null"
	}
	return "invalid JSON"
}

// clip bounds what an error echoes of a value.
func clip(s string) string {
	const most = 80
	if len(s) <= most {
		return s
	}
	return s[:most] + "…"
}
