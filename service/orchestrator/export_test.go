package orchestrator

// For the external tests (package orchestrator_test), which drive
// features over the core: the live impact projects, grown for a sweep;
// live orchestrators; a way to close what a sweep left open.
var (
	ImpactBinaries = impactBinaries
	LiveIn         = liveIn
	MustCheck      = mustCheck
	CloseAll       = closeAll
)

// SweepProject is server's live impact project grown to 100 source
// files.
func SweepProject(server string) map[string]string { return sweepProject(impactProjects()[server]) }
