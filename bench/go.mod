module github.com/lspkit/lspkit/bench

go 1.26.0

require (
	github.com/lspkit/lspkit v0.0.0
	github.com/sourcegraph/jsonrpc2 v0.2.3
	go.lsp.dev/jsonrpc2 v1.0.1
	golang.org/x/exp/jsonrpc2 v0.0.0-20260709172345-9ea1abe57597
)

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3 // indirect
	github.com/lspkit/lspkit/bench/corpus v0.0.0
	golang.org/x/exp/event v0.0.0-20260611194520-c48552f49976 // indirect
	golang.org/x/exp/typeparams v0.0.0-20260611194520-c48552f49976 // indirect
	golang.org/x/mod v0.38.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/tools v0.47.1-0.20260707181000-a299dadba899 // indirect
	golang.org/x/xerrors v0.0.0-20240903120638-7835f813f4da // indirect
	honnef.co/go/tools v0.8.0-rc.1 // indirect
)

replace github.com/lspkit/lspkit => ../

tool honnef.co/go/tools/cmd/staticcheck

replace github.com/lspkit/lspkit/bench/corpus => ./corpus
