package hookinstall

import (
	"paddock/internal/hookinstall/jsonedit"
)

// MCPName is the name paddock's MCP server (`paddock mcp`) is registered
// under with every agent that takes MCP servers.
const MCPName = "paddock"

// MCP says whether an install also registers paddock's MCP server with
// the agent (Options.MCP). An uninstall takes it out either way, and an
// install without it leaves a registration as it is.
func (e *Env) MCP() bool { return e.mcp }

// MCPArgv is the command an agent runs to start paddock's MCP server.
func (e *Env) MCPArgv() []string {
	a := []string{e.binary, "mcp"}
	if e.dataDir != "" {
		a = append(a, "--data-dir", e.dataDir)
	}
	return a
}

// IsOurMCPArgv recognises paddock's MCP server command, whatever binary
// path or data dir it was registered with.
func (e *Env) IsOurMCPArgv(argv []string) bool {
	return len(argv) >= 2 && e.isPaddockProgram(argv[0]) && argv[1] == "mcp"
}

// MCPTargets says whether a Spec's targets include its MCP registration:
// on an install asked for it, and on every uninstall.
func (e *Env) MCPTargets(install bool) bool { return e.mcp || !install }

// IsOurMCPEntry recognises paddock's entry in a JSON list of MCP servers:
// its command as a string with an "args" list, or as one argv list.
func (e *Env) IsOurMCPEntry(n *jsonedit.Node) bool {
	if n == nil || n.Kind() != '{' {
		return false
	}
	if cmd, ok := n.GetString("command"); ok {
		args, _ := n.Get("args").Strings()
		return e.IsOurMCPArgv(append([]string{cmd}, args...))
	}
	argv, ok := n.Get("command").Strings()
	return ok && e.IsOurMCPArgv(argv)
}

// MCPJSONTarget is a JSON config that lists MCP servers in its top-level
// object container (Claude's and Kimi's "mcpServers", OpenCode's "mcp"):
// paddock's entry there under MCPName, the file made (0600) when absent
// and removed again when nothing else is left in it.
func (e *Env) MCPJSONTarget(path, container string, entry jsonedit.Object) Target {
	m := &jsonedit.Member{Container: container, Name: MCPName, Value: entry, Ours: e.IsOurMCPEntry}
	return Target{Path: path, Base: []byte("{}\n"), Mode: 0o600, Edit: func(src []byte, _, install bool) (Edit, error) {
		r, err := m.Edit(src, install)
		if err != nil {
			return Edit{}, err
		}
		// Other MCP servers are not hooks: they are not counted as the
		// user's hook entries.
		res := Edit{Out: r.Out, Ours: r.Ours}
		if r.Taken && install {
			res.Notes = append(res.Notes, "an MCP server named "+MCPName+" is registered there already and is not this paddock: left as it is")
		}
		return res, nil
	}}
}

// MCPCommand is paddock's MCP server as a command and its arguments, the
// shape most agents' MCP configs take.
func (e *Env) MCPCommand() jsonedit.Object {
	argv := e.MCPArgv()
	return jsonedit.Obj("command", argv[0], "args", argv[1:])
}
