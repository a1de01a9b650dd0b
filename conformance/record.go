package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
)

// Record runs a server (argv) between a client on in/out and records both
// directions into w, passing every byte through unchanged. It returns when
// the server exits, with its exit error.
func Record(ctx context.Context, w *Writer, in io.Reader, out io.Writer, stderr io.Writer, argv []string) error {
	if len(argv) == 0 {
		return errors.New("record: no server command")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = stderr
	dieWithParent(cmd)
	serverIn, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	serverOut, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	go func() {
		tap(w, ClientToServer, in, serverIn)
		serverIn.Close() // the client hung up: so does the server's stdin
	}()
	// Every server byte is passed on and recorded before Wait closes the
	// pipe. The client side may still be blocked reading in: the caller
	// exits, which ends it.
	tap(w, ServerToClient, serverOut, out)
	return cmd.Wait()
}

// tap copies src to dst byte for byte and records each frame that passes,
// before passing it on: the transcript's order is the order in which each
// side could have seen the messages.
func tap(w *Writer, dir string, src io.Reader, dst io.Writer) {
	var buf []byte
	chunk := make([]byte, 64<<10)
	for {
		n, err := src.Read(chunk)
		buf = append(buf, chunk[:n]...)
		for {
			frameEnd, body, ok := splitFrame(buf)
			if !ok {
				break
			}
			if body != nil {
				w.Message(dir, body)
			}
			if _, werr := dst.Write(buf[:frameEnd]); werr != nil {
				return
			}
			buf = buf[frameEnd:]
		}
		if err != nil {
			dst.Write(buf) // a partial frame at the end goes through as it is
			return
		}
	}
}

// splitFrame finds the first complete frame in buf: its end and its body.
// Bytes that are not a frame header are passed through as one piece with a
// nil body; ok is false while more bytes are needed.
func splitFrame(buf []byte) (end int, body []byte, ok bool) {
	sep := bytes.Index(buf, []byte("\r\n\r\n"))
	width := 4
	if lf := bytes.Index(buf, []byte("\n\n")); lf >= 0 && (sep < 0 || lf < sep) {
		sep, width = lf, 2
	}
	if sep < 0 {
		if len(buf) > 64<<10 {
			return len(buf), nil, true // no header this long: not LSP framing
		}
		return 0, nil, false
	}
	length := -1
	for _, line := range bytes.Split(buf[:sep], []byte("\n")) {
		name, value, found := bytes.Cut(bytes.TrimSpace(line), []byte(":"))
		if found && bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			if n, err := strconv.Atoi(string(bytes.TrimSpace(value))); err == nil && n >= 0 {
				length = n
			}
		}
	}
	if length < 0 {
		return sep + width, nil, true // a header without a length: pass it on
	}
	end = sep + width + length
	if len(buf) < end {
		return 0, nil, false
	}
	return end, buf[sep+width : end], true
}
