//go:build unix

package client

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// guardSupported says servers can be started through the orphan guard.
const guardSupported = true

// GuardMain runs an orphan guard, the parent of one language server, and
// returns its exit status: args are "--", the server's executable and its
// arguments. The guard starts the server in its own process group (the
// daemon made one for it), with its stdin, stdout and stderr, and waits:
//
//   - when descriptor 3 — a pipe the daemon holds open — reads its end,
//     the daemon is gone (SIGKILL included) and the guard kills the whole
//     group: the server, its children and theirs;
//   - SIGTERM, SIGINT and SIGHUP reach the server through the group; the
//     guard waits for it;
//   - when the server exits, the guard exits as it did (its code, or the
//     same signal) — unless the daemon's pipe has ended by then: a server
//     that exits on its stdin's end can exit before the guard reads that,
//     and its children must not outlive it (the daemon, when alive, ends
//     them itself).
//
// It writes the server's pid to descriptor 4 first. A binary that embeds
// lspkit calls it for its guard command (lspkit's own is `lspkit guard`).
func GuardMain(args []string) int {
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintln(os.Stderr, "lspkit guard: usage: lspkit guard -- SERVER [ARG...] (started by the daemon, with descriptors 3 and 4)")
		return 2
	}
	life, pids := os.NewFile(3, "lspkit-guard-life"), os.NewFile(4, "lspkit-guard-pid")
	if life == nil || pids == nil {
		fmt.Fprintln(os.Stderr, "lspkit guard: descriptors 3 and 4 are not open")
		return 2
	}
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP) // caught, not ignored: the server starts with the defaults
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "lspkit guard: %v\n", err)
		return 127
	}
	fmt.Fprintf(pids, "%d\n", cmd.Process.Pid)
	pids.Close()
	go func() {
		io.Copy(io.Discard, life)
		syscall.Kill(0, syscall.SIGKILL) // the daemon is gone: the whole group goes, the guard too
	}()
	go func() {
		for range signals {
			// The group's signal reached the server too; its exit ends the guard.
		}
	}()
	err := cmd.Wait()
	if daemonGone(life) {
		// The server died with the daemon (its stdin closed with it) before
		// the reading goroutine saw the pipe end: its children go too.
		syscall.Kill(0, syscall.SIGKILL)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		if err != nil {
			fmt.Fprintf(os.Stderr, "lspkit guard: %v\n", err)
			return 1
		}
		return 0
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		signal.Reset(ws.Signal())
		syscall.Kill(os.Getpid(), ws.Signal())
	}
	return exit.ExitCode()
}

// daemonGone says whether the write end of the daemon's pipe is closed:
// poll(2) without waiting, POLLHUP (or readable: end of file).
func daemonGone(life *os.File) bool {
	raw, err := life.SyscallConn() // not Fd(): that would make the descriptor blocking
	if err != nil {
		return false
	}
	gone := false
	raw.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		gone = err == nil && n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLIN) != 0
	})
	return gone
}
