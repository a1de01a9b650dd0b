package client

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lspkit/lspkit/internal/servertest"
)

// TestResidentBytes: a process's resident memory counts the other
// processes of its group (its helpers), and nothing of other groups.
func TestResidentBytes(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & sleep 30 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }()
	pid := cmd.Process.Pid
	own := func(pid int) uint64 {
		statm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
		if err != nil {
			return 0
		}
		pages, _ := strconv.ParseUint(strings.Fields(string(statm))[1], 10, 64)
		return pages * uint64(os.Getpagesize())
	}
	deadline := time.After(servertest.Scale(10 * time.Second))
	for {
		total, ok := residentBytes(pid)
		if !ok {
			t.Fatalf("residentBytes(%d) not measured", pid)
		}
		if total > own(pid) { // the sleeps are in
			break
		}
		select {
		case <-deadline:
			t.Fatalf("the group's other processes were not counted: %d bytes, sh alone %d", total, own(pid))
		case <-time.After(5 * time.Millisecond): // polling /proc, with a deadline
		}
	}
	if _, ok := residentBytes(1 << 30); ok {
		t.Error("a process that does not exist was measured")
	}
}
