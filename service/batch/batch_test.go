package batch

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

func TestRun(t *testing.T) {
	var inFlight, most atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{}, 20)
	ask := func(_ context.Context, q int) (any, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		started <- struct{}{}
		<-release
		switch q {
		case 1:
			return nil, transport.Errorf(transport.CodeInvalidParams, "bad %d", q)
		case 2:
			return nil, errors.New("plain")
		case 3:
			panic("boom")
		}
		return q * 10, nil
	}
	qs := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	done := make(chan []api.Answer)
	go func() {
		a, err := Run(context.Background(), qs, ask)
		if err != nil {
			t.Error(err)
		}
		done <- a
	}()
	for range Parallel {
		<-started // Parallel questions are asked at once before any ends
	}
	close(release)
	answers := <-done
	if m := most.Load(); m != Parallel {
		t.Errorf("at most %d in flight, want %d", m, Parallel)
	}
	if len(answers) != len(qs) {
		t.Fatalf("%d answers, want %d", len(answers), len(qs))
	}
	for i, a := range answers {
		switch i {
		case 1:
			if a.Error == nil || a.Error.Code != transport.CodeInvalidParams || a.Error.Message != "bad 1" {
				t.Errorf("answer 1 = %+v", a)
			}
		case 2, 3:
			if a.Error == nil || a.Error.Code != transport.CodeInternalError {
				t.Errorf("answer %d = %+v, want an internal error", i, a)
			}
		default:
			if a.Error != nil || a.Result != i*10 {
				t.Errorf("answer %d = %+v, want %d", i, a, i*10)
			}
		}
	}
	if _, err := Run(context.Background(), []int{}, ask); err == nil {
		t.Error("an empty batch was taken")
	}
	if _, err := Run(context.Background(), make([]int, api.MaxBatch+1), ask); err == nil {
		t.Error("an oversize batch was taken")
	}
}
