//go:build linux && race

package main

// raceEnabled builds the daemon under test with the race detector too.
const raceEnabled = true
