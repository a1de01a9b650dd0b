module github.com/lspkit/lspkit/bench/accuracy

go 1.26.0

replace github.com/lspkit/lspkit => ../..

require (
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3
	github.com/lspkit/lspkit v0.0.0
	golang.org/x/tools v0.47.1-0.20260707181000-a299dadba899
)

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/bmatcuk/doublestar/v4 v4.10.4 // indirect
	github.com/fsnotify/fsnotify v1.9.0 // indirect
	github.com/sourcegraph/conc v0.3.0 // indirect
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
	golang.org/x/exp/typeparams v0.0.0-20260611194520-c48552f49976 // indirect
	golang.org/x/mod v0.38.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	honnef.co/go/tools v0.8.0-rc.1 // indirect
)

tool honnef.co/go/tools/cmd/staticcheck
