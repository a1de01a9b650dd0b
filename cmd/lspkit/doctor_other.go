//go:build !linux

package main

// watchLimit reports no per-user watch limit: kqueue's descriptors count
// against the process's descriptor limit, which Go raises at start and the
// watcher's budget respects, and Windows watches a tree with one handle.
func watchLimit() (int, string) { return 0, "" }
