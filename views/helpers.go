package views

import (
	"encoding/json"
	"net/url"
	"strconv"
)

// csrfHeaders is the hx-headers value that makes every htmx request carry
// the session's CSRF token.
func csrfHeaders(token string) string {
	b, _ := json.Marshal(map[string]string{"X-CSRF-Token": token})
	return string(b)
}

func liveTitle(live bool) string {
	if live {
		return "running now"
	}
	return "not running"
}

func roleLabel(role string) string {
	switch role {
	case "user":
		return "You"
	case "tool":
		return "Tool"
	}
	return "Agent"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// messageCount is how long the conversation is: "12 messages", or
// "50+ messages" when only its newest page was read (Total < 0).
func messageCount(s Session) string {
	if s.Total < 0 {
		return strconv.Itoa(len(s.Conversation.Messages)) + "+ messages"
	}
	return strconv.Itoa(s.Total) + " messages"
}

// keyBar is the terminal view's keys: the ones phone keyboards lack. Name
// is tmux's (the server's allowlist checks it again).
var keyBar = []struct{ Name, Text, Label string }{
	{"Escape", "Esc", "Esc (Escape)"}, {"Tab", "Tab", "Tab"}, {"C-c", "^C", "Control C"},
	{"Up", "↑", "Up"}, {"Down", "↓", "Down"}, {"Left", "←", "Left"}, {"Right", "→", "Right"},
	{"Enter", "⏎", "Enter"}, {"1", "1", "1"}, {"2", "2", "2"}, {"3", "3", "3"}, {"4", "4", "4"},
}

func liveFlag(live bool) string {
	if live {
		return "1"
	}
	return "0"
}

// platforms are the devices the certificate page has steps for.
var platforms = []string{"ios", "android", "macos", "windows", "linux"}

// platformOrder is every platform, the device's own first.
func platformOrder(own string) []string {
	out := []string{}
	if own != "" {
		out = append(out, own)
	}
	for _, p := range platforms {
		if p != own {
			out = append(out, p)
		}
	}
	return out
}

func platformName(p string) string {
	switch p {
	case "ios":
		return "iPhone and iPad"
	case "android":
		return "Android"
	case "macos":
		return "Mac"
	case "windows":
		return "Windows"
	case "linux":
		return "Linux"
	}
	return p
}

// searchURL is the search page, for q when the board's box holds words.
func searchURL(q string) string {
	if q == "" {
		return "/search"
	}
	return "/search?" + url.Values{"q": {q}}.Encode()
}
