package service

// ServerStatus is one server's state for lsp/status.
type ServerStatus struct {
	ID        string `json:"id"`
	Language  string `json:"language"`
	Status    string `json:"status"`
	Root      string `json:"root,omitempty"`
	ServerPID int    `json:"serverPid,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Restarts  int    `json:"restarts,omitempty"`
}

// Status reports every built-in and configured server, ordered by id (and
// by root when one server runs in several): running ones as they are, the
// others as disabled, unavailable (with how to install) or ready to start.
func (o *Orchestrator) Status() []ServerStatus {
	running := map[string][]ServerStatus{}
	for _, s := range o.liveSessions() {
		s.mu.Lock()
		st := ServerStatus{ID: s.spec.ID, Language: s.spec.Language, Status: s.state, Root: s.root, Reason: s.reason, Restarts: s.restarts}
		if s.client != nil && s.state == StatusActive {
			st.ServerPID = s.client.Status().PID
		}
		s.mu.Unlock()
		running[s.spec.ID] = append(running[s.spec.ID], st)
	}
	var out []ServerStatus
	for _, id := range sortedKeys(o.specs) {
		spec := o.specs[id]
		if sts, ok := running[id]; ok {
			out = append(out, sts...)
			continue
		}
		st := ServerStatus{ID: id, Language: spec.Language}
		switch {
		case o.cfg.Disabled:
			st.Status, st.Reason = StatusDisabled, "LSP disabled by configuration"
		case !spec.Enabled:
			st.Status, st.Reason = StatusDisabled, "disabled by configuration"
			if spec.DefaultDisabled {
				st.Reason = "off by default; enable with lsp.servers." + id + ".enabled"
			}
		default:
			if _, ok := o.lookup(spec.Command); ok {
				st.Status, st.Reason = StatusActive, "not started: starts when a matching file is checked"
			} else if spec.Install != nil && o.cfg.AutoInstall {
				st.Status, st.Reason = StatusActive, "not installed: installed on first need ("+spec.Install.describe()+")"
			} else {
				st.Status = StatusUnavailable
				st.Reason = spec.Command + " not found on PATH or in the server cache"
				if spec.Install != nil {
					st.Reason += "; install it with: " + spec.Install.describe()
				}
			}
		}
		out = append(out, st)
	}
	return out
}
