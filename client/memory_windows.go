package client

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// getProcessMemoryInfo is K32GetProcessMemoryInfo (kernel32, Windows 7
// and later); x/sys/windows does not wrap it.
var getProcessMemoryInfo = windows.NewLazySystemDLL("kernel32.dll").NewProc("K32GetProcessMemoryInfo")

// processMemoryCounters is PROCESS_MEMORY_COUNTERS.
type processMemoryCounters struct {
	cb                         uint32
	pageFaultCount             uint32
	peakWorkingSetSize         uintptr
	workingSetSize             uintptr
	quotaPeakPagedPoolUsage    uintptr
	quotaPagedPoolUsage        uintptr
	quotaPeakNonPagedPoolUsage uintptr
	quotaNonPagedPoolUsage     uintptr
	pagefileUsage              uintptr
	peakPagefileUsage          uintptr
}

// residentBytes is the working set of the process pid.
func residentBytes(pid int) (uint64, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, false
	}
	defer windows.CloseHandle(h)
	var m processMemoryCounters
	m.cb = uint32(unsafe.Sizeof(m))
	if ok, _, _ := getProcessMemoryInfo.Call(uintptr(h), uintptr(unsafe.Pointer(&m)), uintptr(m.cb)); ok == 0 {
		return 0, false
	}
	return uint64(m.workingSetSize), true
}

// jobResident is the working set of every process in the job: the server
// and its helpers. ok is false when the job's processes cannot be listed.
func jobResident(job windows.Handle) (uint64, bool) {
	// JOBOBJECT_BASIC_PROCESS_ID_LIST: two counts, then the ids.
	type idList struct {
		assigned, listed uint32
		ids              [256]uintptr
	}
	var list idList
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicProcessIdList, uintptr(unsafe.Pointer(&list)), uint32(unsafe.Sizeof(list)), nil); err != nil {
		return 0, false
	}
	var total uint64
	found := false
	for _, id := range list.ids[:min(int(list.listed), len(list.ids))] {
		if b, ok := residentBytes(int(id)); ok {
			total += b
			found = true
		}
	}
	return total, found
}

// resident is the working set of the server's job (the server pid alone
// without one).
func (c *processControl) resident(pid int) (uint64, bool) {
	if c.job != 0 {
		if b, ok := jobResident(c.job); ok {
			return b, true
		}
	}
	return residentBytes(pid)
}
