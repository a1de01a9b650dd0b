module github.com/lspkit/lspkit/bench/typed

go 1.26.0

replace (
	github.com/lspkit/lspkit => ../..
	github.com/lspkit/lspkit/bench/corpus => ../corpus
)

require (
	github.com/lspkit/lspkit v0.0.0
	github.com/lspkit/lspkit/bench/corpus v0.0.0
	github.com/segmentio/encoding v0.5.4
	go.lsp.dev/jsonrpc2 v0.10.0
	go.lsp.dev/protocol v0.12.0
)

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3 // indirect
	github.com/segmentio/asm v1.2.1 // indirect
	go.lsp.dev/pkg v0.0.0-20210717090340-384b27a52fb2 // indirect
	go.lsp.dev/uri v0.3.0 // indirect
	go.uber.org/atomic v1.9.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	go.uber.org/zap v1.21.0 // indirect
	golang.org/x/exp/typeparams v0.0.0-20260611194520-c48552f49976 // indirect
	golang.org/x/mod v0.38.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/tools v0.47.1-0.20260707181000-a299dadba899 // indirect
	honnef.co/go/tools v0.8.0-rc.1 // indirect
)

tool honnef.co/go/tools/cmd/staticcheck
