// Package batch answers a batch of questions concurrently: each asked at
// most Parallel at once, answered in order, each with its own result or
// error, a panic in one answered as that question's internal error. The
// adapters give it their own way to ask one question (the JSON-RPC
// method table, the MCP tools).
package batch

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/lspkit/lspkit/service/api"
	"github.com/lspkit/lspkit/transport"
)

// Parallel is how many questions of one batch are asked at once: each
// server answers its requests concurrently (gopls, clangd) or queues them
// (tsserver), so more in flight buys nothing.
const Parallel = 8

// Run asks each question with ask, at most Parallel at once, and returns
// their answers in order. It refuses an empty batch, or one of more than
// api.MaxBatch questions, with an invalid-params error.
func Run[Q any](ctx context.Context, questions []Q, ask func(context.Context, Q) (any, error)) ([]api.Answer, error) {
	switch {
	case len(questions) == 0:
		return nil, transport.Errorf(transport.CodeInvalidParams, "questions: give 1 to %d questions", api.MaxBatch)
	case len(questions) > api.MaxBatch:
		return nil, transport.Errorf(transport.CodeInvalidParams, "questions: %d questions; a batch holds at most %d", len(questions), api.MaxBatch)
	}
	answers := make([]api.Answer, len(questions))
	sem := make(chan struct{}, Parallel)
	var wg sync.WaitGroup
	for i, q := range questions {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer func() {
				if r := recover(); r != nil {
					answers[i] = api.Answer{Error: &api.AnswerError{Code: transport.CodeInternalError, Message: fmt.Sprintf("internal error: %v", r)}}
				}
			}()
			res, err := ask(ctx, q)
			if err != nil {
				answers[i] = api.Answer{Error: AnswerError(err)}
				return
			}
			answers[i] = api.Answer{Result: res}
		}()
	}
	wg.Wait()
	return answers, nil
}

// AnswerError is err as a batch answer's error: a *transport.Error's code,
// message and data; any other error an internal error with its message.
func AnswerError(err error) *api.AnswerError {
	if e, ok := errors.AsType[*transport.Error](err); ok {
		return &api.AnswerError{Code: e.Code, Message: e.Message, Data: e.Data}
	}
	return &api.AnswerError{Code: transport.CodeInternalError, Message: err.Error()}
}
