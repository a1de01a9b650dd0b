package features

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/lsptest"
	"github.com/lspkit/lspkit/internal/servertest"
	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/service/config"
	"github.com/lspkit/lspkit/service/orchestrator"
	"github.com/lspkit/lspkit/transport"
)

// The features' tests drive a Service: an in-process orchestrator with
// fake servers (newFake), or real ones installed by lspkit install
// --tested (live), and the features over it.

// fake is a service whose servers are in-process fakes.
type fake struct {
	*Service
	root     string
	launcher *lsptest.Launcher
}

// newFake writes files into a new root and starts a service over it with
// the configuration doc, whose servers run behaviors in-process.
func newFake(t *testing.T, files map[string]string, doc string, behaviors map[string]lsptest.Behavior) *fake {
	t.Helper()
	root := t.TempDir()
	lsptest.WriteFiles(t, root, files)
	l := &lsptest.Launcher{Behaviors: behaviors}
	t.Cleanup(func() { // after start's: cleanups run last first
		if n := l.Alive(); n != 0 {
			t.Errorf("%d fake servers still running after Shutdown", n)
		}
	})
	s := start(t, root, doc, orchestrator.Options{Launch: l.Launch, StopGrace: time.Second})
	return &fake{Service: s, root: s.Root(), launcher: l}
}

// start starts a service over root with the configuration doc and opts,
// shut down when the test ends.
func start(t testing.TB, root, doc string, opts orchestrator.Options) *Service {
	t.Helper()
	cfg, err := config.Parse([]byte(doc), "test")
	if err != nil {
		t.Fatal(err)
	}
	opts.Root, opts.Config = root, cfg
	o, err := orchestrator.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Shutdown(context.Background()) })
	return NewService(o)
}

func (f *fake) check(t *testing.T, p api.CheckParams) api.CheckResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := f.Check(ctx, p)
	if err != nil {
		t.Fatalf("check %+v: %v", p, err)
	}
	return res
}

// live starts a service over a new root with files and the
// configuration's lsp options (autoInstall off).
func live(t testing.TB, files map[string]string, options string) *Service {
	t.Helper()
	root := t.TempDir()
	lsptest.WriteFiles(t, root, files)
	return liveIn(t, root, options)
}

// liveIn starts a service over root with a live test's configuration
// (servertest.LiveConfig) and the lsp options given.
func liveIn(t testing.TB, root, options string) *Service {
	t.Helper()
	return start(t, root, servertest.LiveConfig(options), orchestrator.Options{})
}

func mustCheck(t testing.TB, o *Service, p api.CheckParams) api.CheckResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), servertest.Scale(3*time.Minute))
	defer cancel()
	res, err := o.Check(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// isCode reports whether err is the contract's error with code.
func isCode(err error, code int64) bool {
	var e *transport.Error
	return errors.As(err, &e) && e.Code == code
}
