module github.com/lspkit/lspkit/bench

go 1.26.0

require (
	github.com/lspkit/lspkit v0.0.0
	github.com/sourcegraph/jsonrpc2 v0.2.3
	go.lsp.dev/jsonrpc2 v1.0.1
	golang.org/x/exp/jsonrpc2 v0.0.0-20260709172345-9ea1abe57597
)

require (
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3 // indirect
	golang.org/x/exp/event v0.0.0-20260611194520-c48552f49976 // indirect
	golang.org/x/xerrors v0.0.0-20240903120638-7835f813f4da // indirect
)

replace github.com/lspkit/lspkit => ../
