package orchestrator

import (
	"context"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/lspkit/lspkit/service/api"
)

// Status reports every built-in and configured server, ordered by id (and
// by root when one server runs in several): running ones as they are, the
// others as disabled, unavailable (with how to install) or ready to start.
// When there is something to say of the configuration (Notes), the daemon
// itself has an entry too, api.DaemonStatusID, in its place by id.
func (o *Orchestrator) Status() []api.ServerStatus { return o.status(o.notes) }

// StatusOf is Status as ctx's caller (Attach) sees it: the notes it was
// attached with are on the daemon's entry too.
func (o *Orchestrator) StatusOf(ctx context.Context) []api.ServerStatus {
	notes := o.notes
	if c, ok := ctx.Value(callerKey{}).(*caller); ok && len(c.notes) > 0 {
		notes = slices.Concat(o.notes, c.notes)
	}
	return o.status(notes)
}

// status is Status with notes on the daemon's entry.
func (o *Orchestrator) status(notes []string) []api.ServerStatus {
	running := map[string][]api.ServerStatus{}
	for _, s := range o.liveSessions() {
		s.mu.Lock()
		st := api.ServerStatus{ID: s.spec.ID, Language: s.spec.Language, Status: s.state, Root: s.root, Reason: s.reason, Restarts: s.restarts}
		if len(s.roots) > 1 {
			st.Roots = slices.Clone(s.roots)
		}
		if s.client != nil && s.state == api.StatusActive {
			st.ServerPID = s.client.Status().PID
			st.Watching = s.client.WatchStatus()
			if b, ok := s.client.ResidentMemory(); ok {
				st.MemoryMB = int((b + 1<<20 - 1) >> 20)
			}
			st.SharedWith = s.client.SharedWith()
		}
		st.Sidecar = s.side.Status()
		s.mu.Unlock()
		running[s.spec.ID] = append(running[s.spec.ID], st)
	}
	var out []api.ServerStatus
	ids := slices.Collect(maps.Keys(o.specs))
	if len(notes) > 0 && o.specs[api.DaemonStatusID] == nil {
		ids = append(ids, api.DaemonStatusID)
	}
	slices.Sort(ids)
	for _, id := range ids {
		spec := o.specs[id]
		if spec == nil {
			out = append(out, api.ServerStatus{ID: id, Language: "", Status: api.StatusActive, ServerPID: os.Getpid(),
				Reason: "lspkit: " + strings.Join(notes, "; "), Notes: slices.Clone(notes)})
			continue
		}
		if sts, ok := running[id]; ok {
			out = append(out, sts...)
			continue
		}
		st := api.ServerStatus{ID: id, Language: spec.Language}
		if spec.Sidecar != nil && spec.Enabled && !o.cfg.Disabled {
			st.Sidecar = &api.SidecarStatus{Status: api.StatusIdle, Reason: "starts with the server: " + strings.Join(spec.Sidecar.Command, " ")}
		}
		switch {
		case o.cfg.Disabled:
			st.Status, st.Reason = api.StatusDisabled, "LSP disabled by configuration"
		case !spec.Enabled:
			st.Status, st.Reason = api.StatusDisabled, "disabled by configuration"
			if spec.DefaultDisabled {
				st.Reason = "off by default; enable with lsp.servers." + id + ".enabled"
			}
		default:
			if why := o.unusedReason(id); why != "" {
				st.Status, st.Reason = api.StatusIdle, why
			} else if _, ok := o.store.Find(spec); ok {
				st.Status, st.Reason = api.StatusIdle, "not started: starts when a matching file is checked"
			} else if spec.Install != nil && spec.Install.From.Kind != "apt" && o.cfg.AutoInstall {
				st.Status, st.Reason = api.StatusIdle, "not installed: installed on first need ("+spec.Install.From.Describe()+")"
			} else {
				st.Status = api.StatusUnavailable
				st.Reason = spec.Command + " not found on PATH or in the server store"
				if spec.Install != nil {
					st.Reason += "; install it with: lspkit install " + id + " (" + spec.Install.From.Describe() + ")"
				}
			}
		}
		out = append(out, st)
	}
	return out
}

// unusedReason says why server id is not running when its sessions were
// stopped for want of use, or "".
func (o *Orchestrator) unusedReason(id string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.unused[id]
}
