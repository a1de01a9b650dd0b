package protocol

import (
	"context"
	"reflect"
	"strconv"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// MessageDirection says which side of a connection sends a method.
type MessageDirection uint8

// The directions of the meta model.
const (
	ClientToServer MessageDirection = iota + 1
	ServerToClient
	BothDirections
)

// String returns the meta model's spelling of the direction.
func (d MessageDirection) String() string {
	switch d {
	case ClientToServer:
		return "clientToServer"
	case ServerToClient:
		return "serverToClient"
	case BothDirections:
		return "both"
	}
	return "MessageDirection(" + strconv.Itoa(int(d)) + ")"
}

// MethodInfo describes one request or notification of the meta model.
type MethodInfo struct {
	Method       string // the JSON-RPC method name, e.g. "textDocument/hover"
	Notification bool   // true for notifications, false for requests
	Direction    MessageDirection

	// The Go types of the method's parts; nil where the method has none.
	// Requests without params use NoParams, requests whose result is always
	// null use NullResult.
	Params              reflect.Type
	Result              reflect.Type
	PartialResult       reflect.Type
	RegistrationOptions reflect.Type
	ErrorData           reflect.Type

	RegistrationMethod string // the method to register dynamically, if not Method
	ClientCapability   string // dotted path into ClientCapabilities, if any
	ServerCapability   string // dotted path into ServerCapabilities, if any

	Since      string // the LSP version that added the method, if known
	Proposed   bool
	Deprecated string
}

// NewParams returns a pointer to a fresh zero params value, or nil.
func (m *MethodInfo) NewParams() any { return newOf(m.Params) }

// NewResult returns a pointer to a fresh zero result value, or nil.
func (m *MethodInfo) NewResult() any { return newOf(m.Result) }

// NewPartialResult returns a pointer to a fresh zero partial-result value, or nil.
func (m *MethodInfo) NewPartialResult() any { return newOf(m.PartialResult) }

// NewRegistrationOptions returns a pointer to fresh zero registration
// options, or nil.
func (m *MethodInfo) NewRegistrationOptions() any { return newOf(m.RegistrationOptions) }

func newOf(t reflect.Type) any {
	if t == nil {
		return nil
	}
	return reflect.New(t).Interface()
}

// RequestType is the typed descriptor of a request with params P and result
// R. Its methods send the request and decode its parts with the generated
// decoders, so every call site is checked by the compiler:
//
//	locs, err := protocol.DefinitionRequest.Call(ctx, conn, params)
type RequestType[P, R any] struct {
	info   *MethodInfo
	params func(*P, *decoder) error
	result func(*R, *decoder) error
}

// Info returns the method's description.
func (t RequestType[P, R]) Info() *MethodInfo { return t.info }

// Method returns the JSON-RPC method name.
func (t RequestType[P, R]) Method() string { return t.info.Method }

// Call sends the request over c and returns its decoded result. A request
// without params (P is NoParams) is sent without a params member. A peer's
// error answer is returned as c returns it; a result that does not decode as
// R is a *DecodeError or *SyntaxError.
func (t RequestType[P, R]) Call(ctx context.Context, c Conn, params P) (R, error) {
	var r R
	err := c.CallRaw(ctx, t.info.Method, paramsValue(params), func(raw []byte) error {
		return decodeAll(raw, &r, t.result)
	})
	if err != nil {
		var zero R
		return zero, err
	}
	return r, nil
}

// DecodeParams decodes the request's params from raw JSON, rejecting missing
// or null params (InvalidParams) and invalid JSON.
func (t RequestType[P, R]) DecodeParams(raw []byte) (P, error) {
	var p P
	err := decodeParams(t.info.Method, raw, &p, t.params)
	return p, err
}

// DecodeResult decodes the request's result from raw JSON.
func (t RequestType[P, R]) DecodeResult(raw []byte) (R, error) {
	var r R
	err := decodeAll(raw, &r, t.result)
	return r, err
}

// decodeParamsAny decodes params into a fresh *P, or NoParams{}.
func (t RequestType[P, R]) decodeParamsAny(raw []byte) (any, error) {
	return decodeParamsAny(t.info.Method, raw, t.params)
}

// NotificationType is the typed descriptor of a notification with params P.
type NotificationType[P any] struct {
	info   *MethodInfo
	params func(*P, *decoder) error
}

// Info returns the method's description.
func (t NotificationType[P]) Info() *MethodInfo { return t.info }

// Method returns the JSON-RPC method name.
func (t NotificationType[P]) Method() string { return t.info.Method }

// Notify sends the notification over c (without a params member when P is
// NoParams).
func (t NotificationType[P]) Notify(ctx context.Context, c Conn, params P) error {
	return c.Notify(ctx, t.info.Method, paramsValue(params))
}

// DecodeParams decodes the notification's params from raw JSON.
func (t NotificationType[P]) DecodeParams(raw []byte) (P, error) {
	var p P
	err := decodeParams(t.info.Method, raw, &p, t.params)
	return p, err
}

func (t NotificationType[P]) decodeParamsAny(raw []byte) (any, error) {
	return decodeParamsAny(t.info.Method, raw, t.params)
}

// Conn is what typed calls need from a JSON-RPC connection;
// *transport.Conn implements it.
type Conn interface {
	// CallRaw sends a request and passes the raw JSON result to decode
	// before it returns (a peer's error answer is returned instead).
	CallRaw(ctx context.Context, method string, params any, decode func(result []byte) error) error
	// Notify sends a notification; nil params sends none.
	Notify(ctx context.Context, method string, params any) error
}

// paramsValue is what a descriptor sends as params: nil (no member) for
// NoParams.
func paramsValue[P any](p P) any {
	if _, none := any(p).(NoParams); none {
		return nil
	}
	return p
}

// decodeAll decodes raw, one complete JSON value, into v.
func decodeAll[T any](raw []byte, v *T, dec func(*T, *decoder) error) error {
	d := decoder{data: raw}
	if err := dec(v, &d); err != nil {
		return err
	}
	return d.end()
}

// decodeParams decodes the params of method into p. Missing or null params
// of a method that has them are an InvalidParams error naming the method;
// for a method without params (NoParams) whatever arrived is validated and
// ignored.
func decodeParams[P any](method string, raw []byte, p *P, dec func(*P, *decoder) error) error {
	if _, none := any(p).(*NoParams); none {
		if len(raw) == 0 {
			return nil
		}
	} else if len(raw) == 0 || string(raw) == "null" {
		return invalidParams(method, nil)
	}
	if err := decodeAll(raw, p, dec); err != nil {
		return invalidParams(method, err)
	}
	return nil
}

func decodeParamsAny[P any](method string, raw []byte, dec func(*P, *decoder) error) (any, error) {
	p := new(P)
	if err := decodeParams(method, raw, p, dec); err != nil {
		return nil, err
	}
	if _, none := any(p).(*NoParams); none {
		return NoParams{}, nil
	}
	return p, nil
}

// paramsTypeError is the error for Call{Server,Client} given params that
// are not what Decode{Server,Client}Params returns for the method.
func paramsTypeError(method string, params any) error {
	return internalError("%s: params of type %T, not decoded for this method", method, params)
}

// LookupMethod returns the description of the named method of the meta
// model, or false.
func LookupMethod(name string) (*MethodInfo, bool) {
	m, ok := methodIndex[name]
	return m, ok
}

// Methods returns every method of the meta model, requests first, each group
// in model order. The slice is fresh; the descriptions are shared.
func Methods() []*MethodInfo {
	return append([]*MethodInfo(nil), methodList...)
}

// encodeResult encodes a method's result.
func encodeResult(method string, r any) (jsontext.Value, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, internalError("%s: encode result: %v", method, err)
	}
	return b, nil
}

// LookupType returns the Go type generated for the named structure,
// enumeration or type alias of the meta model, or false.
func LookupType(modelName string) (reflect.Type, bool) {
	t, ok := typeIndex[modelName]
	return t, ok
}

// ModelTypeNames returns the meta model names LookupType knows, sorted.
func ModelTypeNames() []string {
	return append([]string(nil), typeNames...)
}
