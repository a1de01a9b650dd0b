package lspserver

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/protocol"
)

// What the servers tell a user reaches the client. Their work-done
// progress (gopls loading packages, tsserver's project) is relayed on
// tokens lspkit creates at the client, when the client takes work-done
// progress, with the server's name before each title; the messages they
// show are shown, the server named; a server's question
// (window/showMessageRequest) is shown with its choices and what lspkit
// answered for the client — no choice, since the servers are lspkit's and
// may be shared — rather than dropped.

// serverEvent is one server's event, queued for the client.
type serverEvent struct {
	server string
	e      client.Event
}

// relay sends the servers' events to the client in order, on a goroutine
// of its own: the servers' reading paths never wait on the client.
type relay struct {
	s    *Server
	mu   sync.Mutex
	q    []serverEvent
	wake chan struct{}
	// tokens maps a server's progress token (server, token) to the
	// client's, from its begin to its end.
	tokens map[string]protocol.ProgressToken
	next   int
	// opened is closed once the client has the initialize answer: a
	// server sends the client nothing before it.
	opened chan struct{}
	open   func()
}

func newRelay(s *Server) *relay {
	r := &relay{s: s, wake: make(chan struct{}, 1), tokens: map[string]protocol.ProgressToken{}, opened: make(chan struct{})}
	r.open = sync.OnceFunc(func() { close(r.opened) })
	return r
}

// add queues an event (Backend.OnServerEvent's callback): never blocks.
func (r *relay) add(server string, e client.Event) {
	r.mu.Lock()
	r.q = append(r.q, serverEvent{server, e})
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// run relays the queued events, once the client has the initialize
// answer, until ctx ends.
func (r *relay) run(ctx context.Context) {
	defer func() {
		if p := recover(); p != nil {
			r.s.log.Error("lsp: relay: panic", "panic", p)
		}
	}()
	select {
	case <-r.opened:
	case <-ctx.Done():
		return
	}
	for {
		r.mu.Lock()
		q := r.q
		r.q = nil
		r.mu.Unlock()
		for _, ev := range q {
			r.send(ctx, ev)
		}
		select {
		case <-r.wake:
		case <-ctx.Done():
			return
		}
	}
}

func (r *relay) send(ctx context.Context, ev serverEvent) {
	s := r.s
	switch {
	case ev.e.Message != nil:
		m := *ev.e.Message
		m.Message = ev.server + ": " + m.Message
		if ev.e.Asked {
			m.Message += fmt.Sprintf(" [asked: %s; lspkit answered for you: no choice]", strings.Join(ev.e.Actions, " / "))
		}
		if err := protocol.ShowMessageNotification.Notify(ctx, s.conn, m); err != nil {
			s.log.Debug("lsp: showMessage", "err", err)
		}
	case ev.e.Progress != nil && s.takesProgress():
		r.progress(ctx, ev.server, ev.e.Progress)
	}
}

// progress relays one work-done progress notification of a server.
func (r *relay) progress(ctx context.Context, server string, p *protocol.ProgressParams) {
	s := r.s
	tok, err := json.Marshal(p.Token)
	if err != nil {
		return
	}
	key := server + "\x00" + string(tok)
	var v map[string]jsontext.Value
	if json.Unmarshal(p.Value, &v) != nil {
		return
	}
	var kind string
	json.Unmarshal(v["kind"], &kind)
	mine, begun := r.tokens[key]
	switch {
	case kind == "begin" && !begun:
		r.next++
		mine = protocol.NewProgressTokenString(fmt.Sprintf("lspkit/%s/%d", server, r.next))
		if _, err := protocol.WorkDoneProgressCreateRequest.Call(ctx, s.conn, protocol.WorkDoneProgressCreateParams{Token: mine}); err != nil {
			s.log.Debug("lsp: workDoneProgress/create", "err", err)
			return
		}
		r.tokens[key] = mine
		var title string
		json.Unmarshal(v["title"], &title)
		v["title"], _ = json.Marshal(server + ": " + title)
	case !begun:
		return // a report or end of progress not begun here (begun before the client came)
	case kind == "end":
		delete(r.tokens, key)
	}
	if _, ok := v["cancellable"]; ok {
		v["cancellable"] = jsontext.Value("false") // window/workDoneProgress/cancel is not relayed back
	}
	value, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		return
	}
	if err := protocol.ProgressNotification.Notify(ctx, s.conn, protocol.ProgressParams{Token: mine, Value: value}); err != nil {
		s.log.Debug("lsp: $/progress", "err", err)
	}
}

// takesProgress reports whether the client takes work-done progress the
// server creates.
func (s *Server) takesProgress() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.clientCaps.Window
	return w != nil && w.WorkDoneProgress != nil && *w.WorkDoneProgress
}
