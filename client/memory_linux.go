package client

import (
	"bytes"
	"os"
	"strconv"
)

// residentBytes returns the resident memory of the process pid and of the
// other processes of its group — a server's helpers: tsserver under
// typescript-language-server, go list under gopls — leaving out the
// group's leader when it is not pid (the orphan guard). It reads /proc.
func residentBytes(pid int) (uint64, bool) {
	pgrp, ok := groupOf(pid)
	if !ok {
		return 0, false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	page := uint64(os.Getpagesize())
	var total uint64
	found := false
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n <= 0 {
			continue
		}
		if n != pid {
			if g, ok := groupOf(n); !ok || g != pgrp || n == pgrp {
				continue
			}
		}
		statm, err := os.ReadFile("/proc/" + e.Name() + "/statm")
		if err != nil {
			continue // gone meanwhile
		}
		fields := bytes.Fields(statm)
		if len(fields) < 2 {
			continue
		}
		pages, err := strconv.ParseUint(string(fields[1]), 10, 64)
		if err != nil {
			continue
		}
		total += pages * page
		found = found || n == pid
	}
	return total, found
}

// groupOf returns the process group of pid, from /proc/PID/stat (the
// fifth field, counted after the command name in parentheses, which may
// hold anything).
func groupOf(pid int) (int, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(stat[i+1:]) // state, ppid, pgrp, …
	if len(fields) < 3 {
		return 0, false
	}
	g, err := strconv.Atoi(string(fields[2]))
	return g, err == nil
}
