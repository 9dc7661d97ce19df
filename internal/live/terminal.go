package live

import "strings"

// TerminalKind names the terminal a hook's agent runs in, for an external
// card's label, from what the relay captured. tmux wins: a session in tmux
// inside iTerm is reached through tmux.
func TerminalKind(termProgram, tmuxPane string) string {
	if tmuxPane != "" || strings.EqualFold(termProgram, "tmux") {
		return "tmux"
	}
	switch p := strings.ToLower(termProgram); {
	case p == "":
		return ""
	case p == "vscode":
		// Cursor and Windsurf also report vscode; the card says the family.
		return "VS Code"
	case strings.Contains(p, "jetbrains") || strings.Contains(p, "jediterm"):
		return "JetBrains"
	case p == "iterm.app":
		return "iTerm"
	case p == "warpterminal":
		return "Warp"
	case p == "apple_terminal":
		return "Terminal"
	case p == "wezterm":
		return "WezTerm"
	case p == "hyper":
		return "Hyper"
	case p == "ghostty":
		return "Ghostty"
	case p == "kitty" || p == "xterm-kitty":
		return "Kitty"
	case p == "alacritty":
		return "Alacritty"
	}
	return termProgram
}
