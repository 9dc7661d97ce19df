package hold

// SameJSON is sameJSON, for the external tests.
var SameJSON = sameJSON
