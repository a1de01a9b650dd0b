package features

import (
	"context"
	"errors"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// errNavigationTimeout ends a navigation question's context at
// Config.NavigationTimeout.
var errNavigationTimeout = errors.New("navigationTimeout")

// bounded answers a navigation question (what names it) within
// Config.NavigationTimeout, when one is set. A question the bound ends,
// or whose request to a server ran past Config.RequestTimeout, fails with
// api.CodeTimeout saying which bound it hit.
func bounded[R any](f *Features, ctx context.Context, what string, ask func(context.Context) (R, error)) (R, error) {
	if d := f.cfg.NavigationTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, errNavigationTimeout)
		defer cancel()
	}
	res, err := ask(ctx)
	if err == nil {
		return res, nil
	}
	if errors.Is(context.Cause(ctx), errNavigationTimeout) {
		return res, api.Errorf(api.CodeTimeout, "%s: no answer within navigationTimeout (%d ms): %v", what, f.cfg.NavigationTimeout.Milliseconds(), err)
	}
	if _, ok := errors.AsType[*transport.CallTimeoutError](err); ok {
		return res, api.Errorf(api.CodeTimeout, "%s: %v (requestTimeout)", what, err)
	}
	return res, err
}
