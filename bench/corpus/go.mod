module github.com/lspkit/lspkit/bench/corpus

go 1.26.0
