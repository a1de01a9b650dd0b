package protocol

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Nullable is a value of type T or JSON null: the model's "T | null".
// The zero Nullable is null. An optional nullable property is a *Nullable,
// which keeps all three states apart: absent (nil), null, and a value.
type Nullable[T any] struct {
	value T
	valid bool
}

// NewNullable returns a non-null Nullable holding v.
func NewNullable[T any](v T) Nullable[T] { return Nullable[T]{value: v, valid: true} }

// Null returns the null Nullable of T.
func Null[T any]() Nullable[T] { return Nullable[T]{} }

// Get returns the value and true, or the zero T and false when n is null.
func (n Nullable[T]) Get() (T, bool) { return n.value, n.valid }

// IsNull reports whether n is null.
func (n Nullable[T]) IsNull() bool { return !n.valid }

// MarshalJSONTo encodes null or the value.
func (n Nullable[T]) MarshalJSONTo(enc *jsontext.Encoder) error {
	if !n.valid {
		return enc.WriteToken(jsontext.Null)
	}
	return json.MarshalEncode(enc, n.value)
}

// UnmarshalJSONFrom decodes null or a value of T.
func (n *Nullable[T]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == 'n' {
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		*n = Nullable[T]{}
		return nil
	}
	var v T
	if err := json.UnmarshalDecode(dec, &v); err != nil {
		return err
	}
	*n = Nullable[T]{value: v, valid: true}
	return nil
}

// Ptr returns a pointer to v, for filling optional properties.
func Ptr[T any](v T) *T { return &v }

// NullResult is the result type of requests whose result is always null, such as
// shutdown. It encodes as JSON null and decodes only from null.
type NullResult struct{}

// MarshalJSONTo encodes null.
func (NullResult) MarshalJSONTo(enc *jsontext.Encoder) error { return enc.WriteToken(jsontext.Null) }

// UnmarshalJSONFrom accepts only null.
func (r *NullResult) UnmarshalJSONFrom(dec *jsontext.Decoder) error { return unmarshalFrom(dec, r) }

func (*NullResult) decodeFrom(d *decoder) error {
	if k := d.peek(); k != 'n' {
		if k == 0 {
			return d.unexpected("null")
		}
		return &DecodeError{Type: "null result", Msg: "expected null, got " + kindName(k)}
	}
	return d.literal("null")
}

// NoParams is the params type of requests and notifications that take none
// (shutdown, exit, workspace/workspaceFolders, ...). A sender omits the params
// member for them (TypeScript 7 rejects "params": null on shutdown); the
// generated dispatch ignores whatever params arrive.
type NoParams struct{}

// decodeFrom validates and ignores a value: methods without params ignore
// whatever params arrive.
func (*NoParams) decodeFrom(d *decoder) error { return d.skip() }
