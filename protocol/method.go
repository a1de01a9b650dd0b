package protocol

import (
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

// RequestType is the typed descriptor of a request with params P and result R.
type RequestType[P, R any] struct{ info *MethodInfo }

// Info returns the method's description.
func (d RequestType[P, R]) Info() *MethodInfo { return d.info }

// Method returns the JSON-RPC method name.
func (d RequestType[P, R]) Method() string { return d.info.Method }

// NotificationType is the typed descriptor of a notification with params P.
type NotificationType[P any] struct{ info *MethodInfo }

// Info returns the method's description.
func (d NotificationType[P]) Info() *MethodInfo { return d.info }

// Method returns the JSON-RPC method name.
func (d NotificationType[P]) Method() string { return d.info.Method }

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

// decodeParams decodes the params of method into p. Missing or null params
// of a method that has them are an InvalidParams error naming the method.
func decodeParams(method string, params jsontext.Value, p any) error {
	if len(params) == 0 || string(params) == "null" {
		return NewResponseError(codeInvalidParams, "%s: params are required", method)
	}
	if err := json.Unmarshal(params, p); err != nil {
		return &ResponseError{Code: codeInvalidParams, Message: method + ": invalid params: " + err.Error()}
	}
	return nil
}

// encodeResult encodes a method's result.
func encodeResult(method string, r any) (jsontext.Value, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, NewResponseError(codeInternalError, "%s: encode result: %v", method, err)
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
