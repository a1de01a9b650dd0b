package procshare

import (
	"io"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/lspkit/lspkit/client"
	"github.com/lspkit/lspkit/transport"
)

// A member is one client's part of a shared process: a client.Proc whose
// stdio is a conversation with the group.
type member struct {
	grp atomic.Pointer[group]
	cmd client.Command

	// The client's ends of two pipes, and the pool's.
	clientIn  *io.PipeReader // the client reads the server's messages here
	toClient  *io.PipeWriter
	fromPipe  *io.PipeReader // the pool reads the client's messages here
	clientOut *io.PipeWriter
	outbox    *outbox

	// Guarded by the group's mu.
	folders []string
	open    map[string]bool  // the documents the client has open
	ids     map[string]int64 // the client's ids of its requests in flight → the server's

	exited   atomic.Bool // the client sent exit
	finished sync.Once
	done     chan struct{}
	exit     client.ExitStatus
}

var _ client.Proc = (*member)(nil)

func newMember(g *group, cmd client.Command) *member {
	m := &member{cmd: cmd, open: map[string]bool{}, ids: map[string]int64{}, done: make(chan struct{})}
	m.grp.Store(g)
	m.clientIn, m.toClient = io.Pipe()
	m.fromPipe, m.clientOut = io.Pipe()
	m.outbox = newOutbox(transport.NewWriter(m.toClient), m.toClient)
	go m.read()
	return m
}

func (m *member) g() *group { return m.grp.Load() }

// deliver queues a message for the client.
func (m *member) deliver(msg message) { m.outbox.put(msg.encode()) }

// read passes the client's messages on until its stream ends.
func (m *member) read() {
	r := transport.NewReader(m.fromPipe, transport.ReaderOptions{})
	for {
		frame, err := r.ReadFrame()
		if err != nil {
			break
		}
		msg, err := parse(frame)
		if err != nil {
			continue // the client is lspkit's own: it writes what it reads
		}
		m.fromClient(msg)
	}
	// The client closed its stream without exit: it is gone.
	if !m.exited.Load() {
		m.leave(2 * time.Second)
	}
}

// fromClient passes one message of the client on.
func (m *member) fromClient(msg message) {
	g := m.g()
	switch {
	case msg.kind == transport.KindResponse || msg.kind == transport.KindError:
		g.fromMemberAnswer(msg)
	case msg.method == "initialize":
		m.initialize(msg)
	case msg.method == "shutdown":
		if g.last(m) {
			g.call(m, msg)
			return
		}
		g.detach(m)
		m.deliver(reply(msg.id, []byte("null")))
	case msg.method == "exit":
		m.exited.Store(true)
		g.mu.Lock()
		attached, closing := slices.Contains(g.members, m), g.closing
		g.mu.Unlock()
		if attached && closing {
			g.send(msg) // the last member's: the process ends, and the group with it
			return
		}
		m.leave(0) // left at its shutdown, or leaving now without one

	case msg.method == "initialized":
		if m == g.hostMember() {
			g.send(msg)
			g.mu.Lock()
			select {
			case <-g.initialized:
			default:
				close(g.initialized)
			}
			g.mu.Unlock()
			return
		}
		m.replayRegistrations()
	case msg.method == "$/cancelRequest":
		g.cancel(m, msg)
	case msg.kind == transport.KindRequest:
		g.call(m, msg)
	default:
		m.track(msg)
		g.send(msg)
	}
}

// track keeps the member's open documents and folders.
func (m *member) track(msg message) {
	g := m.g()
	switch msg.method {
	case "textDocument/didOpen", "textDocument/didClose":
		var p struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		if json.Unmarshal(msg.params, &p) != nil {
			return
		}
		g.mu.Lock()
		if msg.method == "textDocument/didOpen" {
			m.open[p.TextDocument.URI] = true
		} else {
			delete(m.open, p.TextDocument.URI)
		}
		g.mu.Unlock()
	case "workspace/didChangeWorkspaceFolders":
		added, removed := folderChanges(msg.params)
		g.mu.Lock()
		m.folders = slices.DeleteFunc(m.folders, func(f string) bool { return slices.Contains(removed, f) })
		for _, f := range added {
			if !slices.Contains(m.folders, f) {
				m.folders = append(m.folders, f)
			}
		}
		g.mu.Unlock()
	}
}

// initialize is the member's initialize: the host's goes to the server;
// another's is answered with the server's answer once that came, and its
// folders are added — unless it asks for something else, or the server
// does not take folders, when it gets a process of its own.
func (m *member) initialize(msg message) {
	g := m.g()
	folders := foldersOf(msg.params)
	key := initKey(msg.params)
	g.mu.Lock()
	m.folders = folders
	if g.host == nil {
		g.host, g.initKey = m, key
		g.mu.Unlock()
		g.call(m, msg)
		return
	}
	g.mu.Unlock()
	<-g.initDone
	joins := g.takes(key)
	if joins {
		<-g.initialized // the host's initialized is on the wire before this member's folders
	}
	g.mu.Lock()
	joins = joins && !g.dead && !g.closing && slices.Contains(g.members, m)
	result := g.initResult
	g.mu.Unlock()
	if !joins {
		m.alone(msg)
		return
	}
	g.send(notification("workspace/didChangeWorkspaceFolders", foldersChange(folders, nil)))
	m.deliver(reply(msg.id, result))
	g.pool.log.Info("server process shared: a member joined", "pid", g.proc.PID(), "folders", folders, "members", g.size())
}

// alone moves the member to a process of its own and sends it its
// initialize there.
func (m *member) alone(msg message) {
	old := m.g()
	old.mu.Lock()
	old.members = slices.DeleteFunc(old.members, func(x *member) bool { return x == m })
	old.mu.Unlock()
	p := old.pool
	proc, err := p.base(old.ctx(), m.cmd)
	if err != nil {
		m.finish(client.ExitStatus{Code: -1, Err: err})
		return
	}
	g := newGroup(p, old.key, proc)
	g.members, g.host, g.initKey = []*member{m}, m, initKey(msg.params)
	m.grp.Store(g)
	p.mu.Lock()
	p.groups[g.key] = append(p.groups[g.key], g)
	p.mu.Unlock()
	go g.serve()
	g.call(m, msg)
}

// takes reports whether the server, as it answered initialize, takes a
// member whose initialize is key.
func (g *group) takes(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.dead && g.initFailed == nil && g.folders && g.initKey == key
}

// hostMember is the member whose initialize the server was sent.
func (g *group) hostMember() *member {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.host
}

// replayRegistrations sends a member that joined the registrations the
// server made before it came, as the server's requests (their answers are
// the pool's, and dropped).
func (m *member) replayRegistrations() {
	g := m.g()
	g.mu.Lock()
	regs := slices.Clone(g.registrations)
	g.mu.Unlock()
	for i, r := range regs {
		m.deliver(message{kind: transport.KindRequest, id: `"procshare-` + r.id + `-` + strconv.Itoa(i) + `"`, method: "client/registerCapability", params: r.params})
	}
}

// leave ends the member now: detached while others stay, or the process
// stopped when it is the last.
func (m *member) leave(grace time.Duration) client.ExitStatus {
	g := m.g()
	select {
	case <-m.done:
		return m.exit
	default:
	}
	if g.last(m) {
		g.proc.Stop(grace)
		<-m.done
		return m.exit
	}
	g.detach(m)
	m.finish(client.ExitStatus{})
	return m.exit
}

// finish ends the member as status says: the client's stream ends after
// what was queued for it.
func (m *member) finish(status client.ExitStatus) {
	m.finished.Do(func() {
		m.exit = status
		m.outbox.close()
		m.fromPipe.Close()
		close(m.done)
	})
}

// Stdio is the client's end of the conversation.
func (m *member) Stdio() io.ReadWriteCloser { return stdio{m.clientIn, m.clientOut} }

// Done is closed when the member has ended: it left, or the process
// exited.
func (m *member) Done() <-chan struct{} { return m.done }

// Exit is how the member ended: the process's exit, or a clean one for a
// member that left a process others still use.
func (m *member) Exit() client.ExitStatus {
	<-m.done
	return m.exit
}

// PID is the shared process's id.
func (m *member) PID() int { return m.g().proc.PID() }

// Stop ends the member: it leaves, and the process stops with its last
// member.
func (m *member) Stop(grace time.Duration) client.ExitStatus { return m.leave(grace) }

// Kill ends the member at once: it leaves, and the process is killed with
// its last member.
func (m *member) Kill() {
	g := m.g()
	select {
	case <-m.done:
		return
	default:
	}
	if g.last(m) {
		g.proc.Kill()
		return
	}
	g.detach(m)
	m.finish(client.ExitStatus{})
}

// StderrTail is the shared process's last stderr lines.
func (m *member) StderrTail() []string { return m.g().proc.StderrTail() }

// Sharers is how many other members the process serves.
func (m *member) Sharers() int { return max(m.g().size()-1, 0) }

// ResidentBytes is the member's share of the process's resident memory.
func (m *member) ResidentBytes() (uint64, bool) { return m.g().share() }

// stdio joins the client's two pipe ends.
type stdio struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (s stdio) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s stdio) Close() error {
	s.w.Close()
	return s.r.Close()
}
