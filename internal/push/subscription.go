package push

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	// Quiet hours are in the device's time zone, whatever the machine has
	// installed.
	_ "time/tzdata"
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
	Turns     bool `json:"turns"`     // a turn finished: the agent waits for the user
	Errors    bool `json:"errors"`    // a turn ended on an error the agent reported
	// DelaySeconds is the escalation delay: notify only when the item (or
	// the finished turn) is still waiting this long after it began, so the
	// desk gets the first chance. 0 notifies at once.
	DelaySeconds int `json:"delay_seconds"`
	// HideDetails keeps the command or question off the lock screen: the
	// notification says only which agent needs what.
	HideDetails bool `json:"hide_details"`
	// Agents are the agents notified of, by name; empty: every agent.
	Agents []string `json:"agents,omitempty"`
	// MuteProjects are projects (as the board names them) never notified
	// of.
	MuteProjects []string `json:"mute_projects,omitempty"`
	// Quiet hours: from QuietFrom to QuietTo ("22:00" to "07:00", the
	// device's time zone TZ), nothing is sent; what still waits when they
	// end is sent then. Both empty: no quiet hours.
	QuietFrom string `json:"quiet_from,omitempty"`
	QuietTo   string `json:"quiet_to,omitempty"`
	TZ        string `json:"tz,omitempty"`
}

// DefaultPrefs notify of approvals and questions at once, with details.
func DefaultPrefs() Prefs { return Prefs{Approvals: true, Questions: true} }

// MaxDelay bounds the escalation delay.
const MaxDelay = 3600

// Bounds of the lists, so a subscription stays a small row.
const (
	maxMuted       = 50
	maxProjectName = 200
)

// check says what is wrong with p, or nil; agents are the known agents'
// names.
func (p Prefs) check(agents []string) error {
	if p.DelaySeconds < 0 || p.DelaySeconds > MaxDelay {
		return fmt.Errorf("prefs.delay_seconds must be from 0 to %d", MaxDelay)
	}
	for _, a := range p.Agents {
		if !slices.Contains(agents, a) {
			return fmt.Errorf("prefs.agents: %q is not one of %s", a, strings.Join(agents, ", "))
		}
	}
	if len(p.MuteProjects) > maxMuted {
		return fmt.Errorf("prefs.mute_projects: at most %d projects", maxMuted)
	}
	for _, m := range p.MuteProjects {
		if strings.TrimSpace(m) == "" || len(m) > maxProjectName {
			return fmt.Errorf("prefs.mute_projects: each is a project's name, 1 to %d bytes", maxProjectName)
		}
	}
	if (p.QuietFrom == "") != (p.QuietTo == "") {
		return fmt.Errorf("prefs.quiet_from and prefs.quiet_to are both given (quiet hours) or neither")
	}
	if p.QuietFrom != "" {
		if _, ok := minuteOfDay(p.QuietFrom); !ok {
			return fmt.Errorf("prefs.quiet_from is a time of day, HH:MM")
		}
		if _, ok := minuteOfDay(p.QuietTo); !ok {
			return fmt.Errorf("prefs.quiet_to is a time of day, HH:MM")
		}
		if p.QuietFrom == p.QuietTo {
			return fmt.Errorf("quiet hours from %s to %s are no hours at all", p.QuietFrom, p.QuietTo)
		}
		if _, err := time.LoadLocation(p.TZ); err != nil || p.TZ == "" || p.TZ == "Local" {
			return fmt.Errorf("prefs.tz is the device's time zone (IANA name, e.g. Europe/Berlin) for its quiet hours")
		}
	}
	return nil
}

// minuteOfDay reads "HH:MM".
func minuteOfDay(s string) (int, bool) {
	t, err := time.Parse("15:04", s)
	if err != nil {
		return 0, false
	}
	return t.Hour()*60 + t.Minute(), true
}

// quiet reports whether now falls in p's quiet hours, in the device's
// time zone; hours that pass midnight (22:00 to 07:00) wrap.
func (p Prefs) quiet(now time.Time) bool {
	if p.QuietFrom == "" {
		return false
	}
	from, ok1 := minuteOfDay(p.QuietFrom)
	to, ok2 := minuteOfDay(p.QuietTo)
	loc, err := time.LoadLocation(p.TZ)
	if !ok1 || !ok2 || err != nil {
		return false
	}
	t := now.In(loc)
	m := t.Hour()*60 + t.Minute()
	if from < to {
		return m >= from && m < to
	}
	return m >= from || m < to
}

// about reports whether p wants to hear of a session of that agent in
// that project.
func (p Prefs) about(runtime, project string) bool {
	if len(p.Agents) > 0 && !slices.Contains(p.Agents, runtime) {
		return false
	}
	return project == "" || !slices.ContainsFunc(p.MuteProjects, func(m string) bool { return strings.EqualFold(strings.TrimSpace(m), project) })
}

// pushHosts are the push services of the browsers paddock serves: an
// endpoint elsewhere would make paddock post to an arbitrary address.
var pushHosts = []string{"fcm.googleapis.com", "updates.push.services.mozilla.com", "push.services.mozilla.com",
	"web.push.apple.com", ".push.apple.com", ".notify.windows.com"}

// Check says what is wrong with a subscription, or nil. extraHosts are
// push services accepted besides the known ones (a test's own); agents
// are the known agents' names.
func (s Subscription) Check(extraHosts, agents []string) error {
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
	return s.Prefs.check(agents)
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
