//go:build race

package daemon_test

// raceEnabled builds the daemon under test with the race detector too: it
// reuses the race build the test binary was made from instead of building
// lspkit a second way.
const raceEnabled = true
