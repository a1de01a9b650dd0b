//go:build race

package main

// raceEnabled: the go commands the tests run build with the race detector
// too, so they reuse the race build of the standard library and this
// module's dependencies instead of compiling them a second way.
const raceEnabled = true
