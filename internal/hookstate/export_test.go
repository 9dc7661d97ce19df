package hookstate

import "time"

// JSONTime is jsonTime, for the external tests.
var JSONTime = jsonTime

// Add is add, for the external tests.
func (s *Sample) Add(d time.Duration) { s.add(d) }
