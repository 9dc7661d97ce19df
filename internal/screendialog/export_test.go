package screendialog

// AllowedKey is allowedKey, for the external tests.
var AllowedKey = allowedKey
