// Package client drives one language-server process for one workspace root.
//
// This file set starts with the process itself ([Process]): its own process
// group, killed with its parent (Linux Pdeathsig), stderr kept in a bounded
// ring for error reports, and a stop that escalates from SIGTERM to SIGKILL
// for the whole group so no process of it survives.
package client
