package pi

import (
	_ "embed"

	"paddock/internal/hookinstall"
)

// Pi has no hook config: paddock installs an extension
// (extensions/paddock.ts in $PI_CODING_AGENT_DIR or ~/.pi/agent) that runs
// the relay for Pi's lifecycle events and, with --pi-hold, waits for
// paddock before a tool that changes something.

//go:embed assets/pi-extension.ts
var extension string

// extensionMarker is how paddock's extension file is told from someone
// else's.
const extensionMarker = "paddock-hook-extension"

func install() hookinstall.Spec {
	return hookinstall.Spec{
		Dir: func(e *hookinstall.Env) string { return e.EnvDir("PI_CODING_AGENT_DIR", ".pi", "agent") },
		Targets: func(e *hookinstall.Env, dir string, install bool) []hookinstall.Target {
			return hookinstall.PluginTargets(dir, []string{"extensions"}, "paddock.ts",
				hookinstall.WholeFile(e.Fill(extension, runtimeName), extensionMarker), install)
		},
		Notes: func(*hookinstall.Env) []string {
			return []string{"Pi loads extensions when it starts: restart running sessions. The extension also reports Pi's pid and session file, which is how paddock knows a Pi session is alive."}
		},
	}
}
