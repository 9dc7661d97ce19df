package views

import (
	"encoding/json"
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
	if role == "user" {
		return "You"
	}
	return "Agent"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
