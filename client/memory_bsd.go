//go:build darwin || freebsd

package client

import (
	"bytes"
	"os/exec"
	"strconv"
)

// residentBytes returns the resident memory of the process pid and of the
// other processes of its group (a server's helpers), leaving out the
// group's leader when it is not pid (the orphan guard). These systems
// publish no /proc: it reads ps, whose RSS column is in KiB on both.
func residentBytes(pid int) (uint64, bool) {
	out, err := exec.Command("ps", "-ax", "-o", "pid=,pgid=,rss=").Output()
	if err != nil {
		return 0, false
	}
	type row struct{ pid, pgid int }
	var rows []row
	rss := map[int]uint64{}
	for line := range bytes.Lines(out) {
		f := bytes.Fields(line)
		if len(f) != 3 {
			continue
		}
		p, err1 := strconv.Atoi(string(f[0]))
		g, err2 := strconv.Atoi(string(f[1]))
		kb, err3 := strconv.ParseUint(string(f[2]), 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		rows = append(rows, row{p, g})
		rss[p] = kb << 10
	}
	group := -1
	for _, r := range rows {
		if r.pid == pid {
			group = r.pgid
		}
	}
	if group < 0 {
		return 0, false
	}
	var total uint64
	for _, r := range rows {
		if r.pid == pid || r.pgid == group && r.pid != group {
			total += rss[r.pid]
		}
	}
	return total, true
}
