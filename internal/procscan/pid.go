// Two questions about one local process, answered from the kernel's own
// process table: is a pid alive, and when did it start. Start times matter
// because pids are reused: a record that says "pid 8934 started at tick
// 22595" names a live process only while both still match. Only the null
// signal 0, which tests for existence, is ever sent.

package procscan

import (
	"bytes"
	"fmt"
)

// parsePidStat extracts the state letter (field 3) and the start time in clock
// ticks since boot (field 22) from the contents of /proc/<pid>/stat.
//
// Field 2 is the command name in parentheses, and that name may itself hold
// spaces and parentheses ("(my (weird) cmd)"), so the remaining fields are
// counted from the last ')' rather than by splitting the whole line.
func parsePidStat(data []byte) (state byte, startTicks string, err error) {
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return 0, "", fmt.Errorf("procscan: malformed stat: no command name")
	}
	// After ") " come fields 3, 4, ...; field 22 is the 20th of them.
	fields := bytes.Fields(data[end+1:])
	const stateField, startField = 0, 22 - 3
	if len(fields) <= startField {
		return 0, "", fmt.Errorf("procscan: malformed stat: %d fields after the command name", len(fields))
	}
	if len(fields[stateField]) != 1 {
		return 0, "", fmt.Errorf("procscan: malformed stat: bad state field")
	}
	start := fields[startField]
	for _, c := range start {
		if c < '0' || c > '9' {
			return 0, "", fmt.Errorf("procscan: malformed stat: start time is not a number")
		}
	}
	return fields[stateField][0], string(start), nil
}
