package procshare

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/transport"
)

// stopGrace is how long a process whose output ended, or could not be
// read, is given to exit before it is killed.
const stopGrace = 2 * time.Second

// A group is one server process and the members it serves.
type group struct {
	pool *Pool
	key  string
	proc client.Proc
	out  *transport.Writer // to the server

	mu      sync.Mutex
	members []*member // attached and not detached, in order
	host    *member   // the member whose initialize the server was sent
	// initKey is the host's initialize less its own folders; initResult
	// the server's answer (nil until it came), initFailed its error
	// answer; initDone is closed when either came or the process ended.
	initKey    string
	initResult []byte
	initFailed []byte
	initDone   chan struct{}
	// initialized is closed once the host's initialized went to the
	// server (or the process ended): a folder added before it is lost on
	// some servers (gopls has no views yet and answers "no views").
	initialized chan struct{}
	folders     bool // the server takes workspace folder changes
	closing     bool // the last member is ending the process
	dead        bool
	nextID      int64
	calls       map[int64]call    // requests of members to the server, by the id the server sees
	asked       map[string]*asked // requests of the server to members, by its id
	// registrations are the server's client/registerCapability params
	// still in force, by registration id: a member that attaches later is
	// sent them.
	registrations []registration
}

// call is a member's request as the server saw it.
type call struct {
	m      *member
	id     string // the member's id
	method string
}

// asked is a server's request sent to members, until one answers.
type asked struct {
	to []*member
}

// registration is one registration of client/registerCapability.
type registration struct {
	id     string
	params jsontext.Value // {"registrations":[this one]}
}

func newGroup(p *Pool, key string, proc client.Proc) *group {
	return &group{pool: p, key: key, proc: proc, out: transport.NewWriter(proc.Stdio()), initDone: make(chan struct{}), initialized: make(chan struct{}), calls: map[int64]call{}, asked: map[string]*asked{}}
}

// attach adds a member for cmd, or returns nil when the group takes no
// more: it is ending, or its server said it does not take folder changes.
func (g *group) attach(cmd client.Command) *member {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closing || g.dead {
		return nil
	}
	select {
	case <-g.initDone:
		if !g.folders || g.initFailed != nil {
			return nil
		}
	default:
	}
	m := newMember(g, cmd)
	g.members = append(g.members, m)
	return m
}

// size is how many members the group serves.
func (g *group) size() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.members)
}

// send writes one message to the server.
func (g *group) send(msg message) error { return g.out.WriteFrame(msg.encode()) }

// serve reads the server until its output ends, then ends the group.
func (g *group) serve() {
	r := transport.NewReader(g.proc.Stdio(), transport.ReaderOptions{})
	for {
		frame, err := r.ReadFrame()
		if err != nil {
			break
		}
		msg, err := parse(frame)
		if err != nil {
			g.pool.log.Warn("server process shared: unreadable message from the server", "pid", g.proc.PID(), "err", err)
			continue
		}
		g.fromServer(msg)
	}
	g.end()
}

// end is the process's end: every member still attached ends as it did.
func (g *group) end() {
	g.mu.Lock()
	g.dead = true
	members := slices.Clone(g.members)
	g.members = nil
	for _, ch := range []chan struct{}{g.initDone, g.initialized} {
		select {
		case <-ch:
		default:
			close(ch)
		}
	}
	g.mu.Unlock()
	g.pool.forget(g)
	// Its output ended (it exits), or could not be read (it is stopped):
	// either way the process ends here.
	status := g.proc.Stop(stopGrace)
	for _, m := range members {
		m.finish(status)
	}
}

// fromServer passes one message of the server on.
func (g *group) fromServer(msg message) {
	switch msg.kind {
	case transport.KindResponse, transport.KindError:
		g.answered(msg)
	case transport.KindRequest:
		g.ask(msg)
	case transport.KindNotification:
		g.tell(msg)
	}
}

// answered passes the server's answer to the member that asked.
func (g *group) answered(msg message) {
	id, err := strconv.ParseInt(msg.id, 10, 64)
	if err != nil {
		return // not an id of ours
	}
	g.mu.Lock()
	c, ok := g.calls[id]
	delete(g.calls, id)
	if ok {
		delete(c.m.ids, c.id)
	}
	if ok && c.method == "initialize" && c.m == g.host {
		if msg.err != nil {
			g.initFailed = msg.err
		} else {
			g.initResult = msg.result
			g.folders = takesFolders(msg.result)
		}
		close(g.initDone)
	}
	others := len(g.members) > 1
	g.mu.Unlock()
	if !ok {
		return
	}
	msg.id = c.id
	if others && msg.err == nil && filtered[c.method] {
		msg.result = g.leaveOut(c.m, msg.result)
	}
	c.m.deliver(msg)
}

// ask passes a request of the server to the members it is for.
func (g *group) ask(msg message) {
	if msg.method == "workspace/workspaceFolders" {
		g.send(reply(msg.id, g.allFolders()))
		return
	}
	if msg.method == "client/registerCapability" || msg.method == "client/unregisterCapability" {
		g.record(msg)
	}
	to := g.recipients(msg)
	if len(to) == 0 {
		g.send(replyError(msg.id, -32803, "no client of this server is attached"))
		return
	}
	g.mu.Lock()
	g.asked[msg.id] = &asked{to: to}
	g.mu.Unlock()
	for _, m := range to {
		m.deliver(msg)
	}
}

// fromMemberAnswer passes the first member's answer to a request of the
// server on; the others' are dropped.
func (g *group) fromMemberAnswer(msg message) {
	g.mu.Lock()
	_, ok := g.asked[msg.id]
	delete(g.asked, msg.id)
	g.mu.Unlock()
	if ok {
		g.send(msg)
	}
}

// tell passes a notification of the server to the members it is for.
func (g *group) tell(msg message) {
	for _, m := range g.recipients(msg) {
		m.deliver(msg)
	}
}

// call sends a member's request to the server under an id of the group's.
func (g *group) call(m *member, msg message) {
	g.mu.Lock()
	g.nextID++
	id := g.nextID
	g.calls[id] = call{m: m, id: msg.id, method: msg.method}
	m.ids[msg.id] = id
	g.mu.Unlock()
	msg.id = strconv.FormatInt(id, 10)
	g.send(msg)
}

// cancel passes a member's $/cancelRequest on, for the id the server saw.
func (g *group) cancel(m *member, msg message) {
	var p struct {
		ID jsontext.Value `json:"id"`
	}
	if json.Unmarshal(msg.params, &p) != nil {
		return
	}
	g.mu.Lock()
	id, ok := m.ids[string(bytes.TrimSpace(p.ID))]
	g.mu.Unlock()
	if ok {
		g.send(notification("$/cancelRequest", []byte(`{"id":`+strconv.FormatInt(id, 10)+`}`)))
	}
}

// record keeps the registrations in force, for members that come later.
func (g *group) record(msg message) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if msg.method == "client/registerCapability" {
		var p struct {
			Registrations []struct {
				ID string `json:"id"`
			} `json:"registrations"`
		}
		var raw struct {
			Registrations []jsontext.Value `json:"registrations"`
		}
		if json.Unmarshal(msg.params, &p) != nil || json.Unmarshal(msg.params, &raw) != nil || len(p.Registrations) != len(raw.Registrations) {
			return
		}
		for i, r := range p.Registrations {
			g.registrations = append(g.registrations, registration{id: r.ID, params: jsontext.Value(`{"registrations":[` + string(raw.Registrations[i]) + `]}`)})
		}
		return
	}
	var p struct {
		Unregisterations []struct {
			ID string `json:"id"`
		} `json:"unregisterations"` // sic: the protocol's spelling
	}
	if json.Unmarshal(msg.params, &p) != nil {
		return
	}
	for _, u := range p.Unregisterations {
		g.registrations = slices.DeleteFunc(g.registrations, func(r registration) bool { return r.id == u.ID })
	}
}

// detach takes m out of the group while others stay: its documents are
// closed and its folders removed on the server, and what the server asked
// only of it is answered with an error.
func (g *group) detach(m *member) {
	g.mu.Lock()
	if !slices.Contains(g.members, m) {
		g.mu.Unlock()
		return
	}
	g.members = slices.DeleteFunc(g.members, func(x *member) bool { return x == m })
	var orphans []string
	for id, a := range g.asked {
		a.to = slices.DeleteFunc(a.to, func(x *member) bool { return x == m })
		if len(a.to) == 0 {
			orphans = append(orphans, id)
			delete(g.asked, id)
		}
	}
	for id, c := range g.calls {
		if c.m == m {
			delete(g.calls, id)
		}
	}
	docs := slices.Sorted(func(yield func(string) bool) {
		for uri := range m.open {
			if !yield(uri) {
				return
			}
		}
	})
	folders := slices.Clone(m.folders)
	g.mu.Unlock()
	for _, id := range orphans {
		g.send(replyError(id, -32803, "the client it was asked of has left"))
	}
	for _, uri := range docs {
		b, _ := json.Marshal(map[string]any{"textDocument": map[string]string{"uri": uri}})
		g.send(notification("textDocument/didClose", b))
	}
	if len(folders) > 0 {
		g.send(notification("workspace/didChangeWorkspaceFolders", foldersChange(nil, folders)))
	}
	g.pool.log.Info("server process shared: a member left", "pid", g.proc.PID(), "folders", folders, "members", g.size())
}

// last reports whether m is the only member left; if so the group is
// closing from then on and takes no one new.
func (g *group) last(m *member) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.members) == 1 && g.members[0] == m {
		g.closing = true
		return true
	}
	return false
}

// share is the part of the process's resident memory that is m's: all of
// it divided among the members.
func (g *group) share() (uint64, bool) {
	p, ok := g.proc.(interface{ ResidentBytes() (uint64, bool) })
	if !ok {
		return 0, false
	}
	b, ok := p.ResidentBytes()
	n := max(g.size(), 1)
	return b / uint64(n), ok
}

// ctx is the context of the group's own starts (a member's own process
// after its initialize asked for something else).
func (g *group) ctx() context.Context { return context.Background() }
