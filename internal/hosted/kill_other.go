//go:build !unix

package hosted

import "errors"

// kill is not supported here.
func kill(int) error { return errors.New("hosted: cannot signal a process on this platform") }
