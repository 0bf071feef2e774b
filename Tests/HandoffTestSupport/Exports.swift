// The in-process world (the manual clock and the in-memory neighbourhood) ships in HandoffExplore,
// which `handoff check --explore` runs its programs in; the tests use the same one.
@_exported import HandoffExplore
