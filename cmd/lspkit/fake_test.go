package main

import (
	"fmt"
	"os"

	"github.com/lspkit/lspkit/transport"
)

// fakeServer is a language server that misbehaves as told, for faults a
// real server cannot be made to show: "crash-on-open" answers initialize
// and dies on the first didOpen; "hang-initialize" never answers.
func fakeServer(mode string) {
	r := transport.NewReader(os.Stdin, transport.ReaderOptions{})
	w := transport.NewWriter(os.Stdout)
	var env transport.Envelope
	for {
		frame, err := r.ReadFrame()
		if err != nil {
			os.Exit(0)
		}
		if env.Scan(frame) != nil {
			continue
		}
		method := string(env.Method)
		switch {
		case mode == "hang-initialize":
			continue
		case method == "textDocument/didOpen":
			fmt.Fprintln(os.Stderr, "fake: crashing on didOpen")
			os.Exit(3)
		case env.Kind == transport.KindRequest && method == "initialize":
			_ = w.WriteFrame([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"capabilities":{"textDocumentSync":1}}}`, env.IDNum)))
		case env.Kind == transport.KindRequest:
			_ = w.WriteFrame([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":null}`, env.IDNum)))
		}
	}
}
