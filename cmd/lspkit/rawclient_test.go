// The end-to-end tests drive the built binary and read /proc: Linux only
// (the other systems are covered by cross-compiled builds and vets).

//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/lspkit/lspkit/transport"
)

// rawClient is the baseline for the check benchmark: the least an LSP
// client can do to get a file's complete diagnostics from gopls — spawn it,
// initialize, initialized, didOpen, gopls.diagnose_files (gopls answers once
// every wave of findings is published), answer what the server asks with
// null, read until that answer and a non-empty publishDiagnostics for the
// file, kill the server.
// Run as the test binary with LSPKIT_FAKE=raw-client and
// LSPKIT_RAW="server-path file-path".
func rawClient() {
	args := strings.Fields(os.Getenv("LSPKIT_RAW"))
	server, file := args[0], args[1]
	root := filepath.Dir(file)
	text, err := os.ReadFile(file)
	if err != nil {
		fail(err)
	}
	cmd := exec.Command(server)
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	w := transport.NewWriter(in)
	r := transport.NewReader(out, transport.ReaderOptions{})
	uri := "file://" + file
	send := func(s string) {
		if err := w.WriteFrame([]byte(s)); err != nil {
			fail(err)
		}
	}
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":%d,"rootUri":"file://%s","capabilities":{"textDocument":{"publishDiagnostics":{"versionSupport":true}}},"workspaceFolders":[{"uri":"file://%s","name":"ws"}]}}`, os.Getpid(), root, root))
	var env transport.Envelope
	opened, diagnosed, published := false, false, false
	for {
		frame, err := r.ReadFrame()
		if err != nil {
			fail(err)
		}
		if err := env.Scan(frame); err != nil {
			continue
		}
		switch {
		case env.Kind == transport.KindResponse && !opened:
			send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
			quoted := fmt.Sprintf("%q", string(text))
			send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":%q,"languageId":"go","version":1,"text":%s}}}`, uri, quoted))
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"gopls.diagnose_files","arguments":[{"Files":[%q]}]}}`, uri))
			opened = true
		case env.Kind == transport.KindResponse && env.IDNum == 2:
			diagnosed = true
			if published {
				return
			}
		case env.Kind == transport.KindRequest:
			id := fmt.Sprint(env.IDNum)
			if env.IDKind == transport.IDString {
				id = fmt.Sprintf("%q", env.IDStr)
			}
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, id))
		case string(env.Method) == "textDocument/publishDiagnostics" && strings.Contains(string(frame), uri) && !strings.Contains(string(frame), `"diagnostics":[]`):
			published = true
			if diagnosed {
				return
			}
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "raw client:", err)
	os.Exit(1)
}
