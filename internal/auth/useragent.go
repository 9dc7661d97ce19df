package auth

import (
	"strings"
	"unicode/utf8"
)

// maxFallbackName caps a device name made from an unrecognised user agent.
const maxFallbackName = 40

// Markers are checked in order: many user agents name several browsers
// ("Chrome/… Safari/…", "Edg/… Chrome/…") and several systems ("iPhone …
// like Mac OS X", "Android … Linux"), so the most specific comes first.
var (
	uaSystems = []struct{ marker, name string }{
		{"iPhone", "iPhone"},
		{"iPad", "iPad"},
		{"Android", "Android"},
		{"CrOS", "ChromeOS"},
		{"Windows", "Windows"},
		{"Macintosh", "Mac"},
		{"Mac OS X", "Mac"},
		{"Linux", "Linux"},
	}
	uaBrowsers = []struct{ marker, name string }{
		{"EdgA/", "Edge"},
		{"EdgiOS/", "Edge"},
		{"Edg/", "Edge"},
		{"OPR/", "Opera"},
		{"OPiOS/", "Opera"},
		{"SamsungBrowser/", "Samsung Internet"},
		{"FxiOS/", "Firefox"},
		{"Firefox/", "Firefox"},
		{"CriOS/", "Chrome"},
		{"Chromium/", "Chromium"},
		{"Chrome/", "Chrome"},
		{"Safari/", "Safari"},
	}
)

// deviceName labels a device for the devices page, e.g. "iPhone · Safari".
// It is a hint for a human, not an identity: user agents are self-reported.
// ua must already be cleaned (cleanText).
func deviceName(ua string) string {
	system := firstMatch(ua, uaSystems)
	browser := firstMatch(ua, uaBrowsers)
	switch {
	case system != "" && browser != "":
		return system + " · " + browser
	case system != "":
		return system
	case browser != "":
		return browser
	case ua == "":
		return "Unknown device"
	}
	if utf8.RuneCountInString(ua) <= maxFallbackName {
		return ua
	}
	n := 0
	for i := range ua {
		if n == maxFallbackName-1 {
			return strings.TrimSpace(ua[:i]) + "…"
		}
		n++
	}
	return ua
}

func firstMatch(ua string, table []struct{ marker, name string }) string {
	for _, e := range table {
		if strings.Contains(ua, e.marker) {
			return e.name
		}
	}
	return ""
}
