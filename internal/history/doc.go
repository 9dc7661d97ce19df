// Package history is the shared mechanics of reading an agent's own
// history files, which every agent package under internal/agent builds
// its scanner from: file signatures that tell one version of a file from
// another by stat alone, a tail window that reads the end of a file
// without the rest, a JSON-lines reader that survives lines of any
// length (clipping an over-long one as it reads it), clipping for card
// text, the working-directory listing rules, safe names, private copies
// of agents' SQLite databases to read (never the databases themselves)
// and a logger that reports each bad file once.
//
// Read only: nothing here writes, truncates, locks, chowns or creates a
// file in an agent's directories, or opens one but for reading. What a file's records mean is each agent's own
// business; this package deals in bytes, lines and stat results.
package history
