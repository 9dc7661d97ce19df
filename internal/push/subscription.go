package push

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Subscription is what the browser's PushManager.subscribe gives, with the
// device's preferences.
type Subscription struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
	Prefs Prefs `json:"prefs"`
}

// Prefs are one device's notification preferences.
type Prefs struct {
	Approvals bool `json:"approvals"` // permission prompts
	Questions bool `json:"questions"` // an agent's questions (and plans)
	// DelaySeconds is the escalation delay: notify only when the item is
	// still waiting this long after it was asked, so the desk gets the
	// first chance. 0 notifies at once.
	DelaySeconds int `json:"delay_seconds"`
	// HideDetails keeps the command or question off the lock screen: the
	// notification says only which agent needs what.
	HideDetails bool `json:"hide_details"`
}

// DefaultPrefs notify of approvals and questions at once, with details.
func DefaultPrefs() Prefs { return Prefs{Approvals: true, Questions: true} }

// MaxDelay bounds the escalation delay.
const MaxDelay = 3600

// pushHosts are the push services of the browsers paddock serves: an
// endpoint elsewhere would make paddock post to an arbitrary address.
var pushHosts = []string{"fcm.googleapis.com", "updates.push.services.mozilla.com", "push.services.mozilla.com",
	"web.push.apple.com", ".push.apple.com", ".notify.windows.com"}

// Check says what is wrong with a subscription, or nil. extraHosts are
// push services accepted besides the known ones (a test's own).
func (s Subscription) Check(extraHosts []string) error {
	u, err := url.Parse(s.Endpoint)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return fmt.Errorf("the endpoint must be an https URL of a browser's push service")
	}
	host := u.Hostname()
	known := false
	for _, h := range append(append([]string(nil), pushHosts...), extraHosts...) {
		if host == h || strings.HasPrefix(h, ".") && strings.HasSuffix(host, h) {
			known = true
		}
	}
	if !known {
		return fmt.Errorf("the endpoint's host %q is not a known push service (Google FCM, Mozilla, Apple, Microsoft)", host)
	}
	if k, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s.Keys.P256dh, "=")); err != nil || len(k) != 65 || k[0] != 4 {
		return fmt.Errorf("keys.p256dh must be the base64url of an uncompressed P-256 public key")
	}
	if a, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s.Keys.Auth, "=")); err != nil || len(a) != 16 {
		return fmt.Errorf("keys.auth must be the base64url of a 16-byte secret")
	}
	if s.Prefs.DelaySeconds < 0 || s.Prefs.DelaySeconds > MaxDelay {
		return fmt.Errorf("prefs.delay_seconds must be from 0 to %d", MaxDelay)
	}
	return nil
}

func (p Prefs) marshal() []byte {
	b, _ := json.Marshal(p)
	return b
}

func parsePrefs(b []byte) Prefs {
	p := DefaultPrefs()
	_ = json.Unmarshal(b, &p)
	return p
}
