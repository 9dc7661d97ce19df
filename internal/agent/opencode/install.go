package opencode

import (
	_ "embed"
	"path/filepath"

	"paddock/internal/hookinstall"
	"paddock/internal/hookinstall/jsonedit"
)

// OpenCode has no hook config: paddock installs a plugin
// (plugin/paddock.js in its config dir, which loads {plugin,plugins}/*.js)
// that runs the relay for the bus events and plugin hooks paddock reads.

//go:embed assets/opencode-plugin.js
var plugin string

// pluginMarker is how paddock's plugin file is told from someone else's.
const pluginMarker = "paddock-hook-plugin"

func install() hookinstall.Spec {
	return hookinstall.Spec{
		Dir: func(e *hookinstall.Env) string {
			if d := e.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
				return filepath.Join(d, "opencode")
			}
			return filepath.Join(e.Home(), ".config", "opencode")
		},
		Targets: func(e *hookinstall.Env, dir string, install bool) []hookinstall.Target {
			ts := hookinstall.PluginTargets(dir, []string{"plugin", "plugins"}, "paddock.js",
				hookinstall.WholeFile(e.Fill(plugin, runtimeName), pluginMarker), install)
			if e.MCPTargets(install) {
				// OpenCode's MCP servers are its config's "mcp" object; a
				// local server's command is one argv list.
				ts = append(ts, e.MCPJSONTarget(filepath.Join(dir, "opencode.json"), "mcp", jsonedit.Obj("type", "local", "command", e.MCPArgv(), "enabled", true)))
			}
			return ts
		},
		Notes: func(*hookinstall.Env) []string {
			return []string{"OpenCode loads plugins when it starts: restart it. The plugin only reports; answering a permission from the phone needs the TUI started with --port so paddock can reach its HTTP server."}
		},
	}
}
