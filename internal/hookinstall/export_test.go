package hookinstall

// Shims for the external tests.
var (
	UnifiedDiff = unifiedDiff
	WriteAtomic = writeAtomic
)
