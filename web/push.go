package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v5"

	"paddock/internal/decisions"
	"paddock/internal/push"
	"paddock/views"
)

// Push is what the push routes need from the notifier (internal/push).
type Push interface {
	PublicKey() string
	Subscribe(ctx context.Context, deviceID string, s push.Subscription) error
	Unsubscribe(ctx context.Context, deviceID, endpoint string) error
	Prefs(ctx context.Context, deviceID string) (push.Prefs, bool, error)
	Test(ctx context.Context, deviceID string) (int, error)
	CheckCapability(deviceID, itemID, token string) bool
	Active(ctx context.Context, deviceID string) (bool, error)
}

var (
	errNoPush        = newError(http.StatusNotFound, "no_push", "This paddock sends no notifications.")
	errPushDevice    = newError(http.StatusForbidden, "device_only", "Notifications are for paired devices; an API token has none.")
	errBadCapability = newError(http.StatusForbidden, "bad_capability", "This notification's action is not valid for this item or device any more; open paddock to answer.")
)

// pushDevice is the paired device a push route acts for.
func (s *Server) pushDevice(c *echo.Context) (string, error) {
	if s.opts.Push == nil {
		return "", errNoPush
	}
	p := principalOf(c)
	if p == nil || p.bearer {
		return "", errPushDevice
	}
	return p.DeviceID, nil
}

// apiPushKey is the VAPID public key a browser subscribes with.
func (s *Server) apiPushKey(c *echo.Context) error {
	if s.opts.Push == nil {
		return errNoPush
	}
	return c.JSON(http.StatusOK, map[string]string{"public_key": s.opts.Push.PublicKey()})
}

// apiPushSubscribe stores this device's subscription and preferences.
func (s *Server) apiPushSubscribe(c *echo.Context) error {
	dev, err := s.pushDevice(c)
	if err != nil {
		return err
	}
	var sub push.Subscription
	dec := json.NewDecoder(c.Request().Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sub); err != nil {
		return newError(http.StatusBadRequest, "bad_subscription", "The body must be a PushSubscription's JSON with prefs: "+err.Error())
	}
	if err := s.opts.Push.Subscribe(c.Request().Context(), dev, sub); err != nil {
		if bad, ok := errors.AsType[*push.BadSubscription](err); ok {
			return newError(http.StatusBadRequest, "bad_subscription", bad.Reason)
		}
		return err
	}
	s.log.Info("push subscription saved", "device", dev)
	return c.NoContent(http.StatusCreated)
}

// apiPushUnsubscribe forgets one of this device's endpoints.
func (s *Server) apiPushUnsubscribe(c *echo.Context) error {
	dev, err := s.pushDevice(c)
	if err != nil {
		return err
	}
	var body struct{ Endpoint string }
	if err := json.NewDecoder(c.Request().Body).Decode(&body); err != nil || body.Endpoint == "" {
		return newError(http.StatusBadRequest, "bad_endpoint", `The body must be {"endpoint": "…"}.`)
	}
	if err := s.opts.Push.Unsubscribe(c.Request().Context(), dev, body.Endpoint); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// apiPushTest sends this device a test notification.
func (s *Server) apiPushTest(c *echo.Context) error {
	dev, err := s.pushDevice(c)
	if err != nil {
		return err
	}
	n, err := s.opts.Push.Test(c.Request().Context(), dev)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]int{"sent": n})
}

// pushAct is a notification's Approve or Deny, posted by the service
// worker. It carries no cookie: the capability, bound to the item and the
// device, is the credential (and the proof that the request is no forgery),
// and it decides nothing for a revoked device or an item already decided.
func (s *Server) pushAct(c *echo.Context) error {
	if s.opts.Push == nil || s.opts.Approvals == nil {
		return errNoPush
	}
	var body struct {
		Item, Device, Verb, Cap string
	}
	if err := json.NewDecoder(c.Request().Body).Decode(&body); err != nil {
		return newError(http.StatusBadRequest, "bad_action", `The body must be {"item", "device", "verb", "cap"}.`)
	}
	if body.Verb != decisions.VerbAllow && body.Verb != decisions.VerbDeny {
		return newError(http.StatusBadRequest, "bad_verb", "A notification approves (allow) or denies (deny).")
	}
	ctx := c.Request().Context()
	if !s.opts.Push.CheckCapability(body.Device, body.Item, body.Cap) {
		s.log.Warn("refused a push action with a bad capability", "ip", c.RealIP())
		return errBadCapability
	}
	if ok, err := s.opts.Push.Active(ctx, body.Device); err != nil {
		return err
	} else if !ok {
		return errBadCapability
	}
	it, ok := s.opts.Approvals.Get(body.Item)
	if !ok || it.Resolution != "" {
		return errBadCapability
	}
	d := decisions.Decision{Verb: body.Verb, By: "device:" + body.Device}
	if body.Verb == decisions.VerbDeny {
		d.Message = "Denied from a notification."
	}
	got, err := s.decide(ctx, body.Item, d)
	if err != nil {
		if ae := classify(err); ae.Status == http.StatusConflict {
			return errBadCapability
		}
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"item": got.ID, "resolution": strings.ToLower(string(got.Resolution))})
}

// settingsPage is the device's settings: its notifications for now.
func (s *Server) settingsPage(c *echo.Context) error {
	v := views.Settings{PushOffered: s.opts.Push != nil}
	if p := principalOf(c); v.PushOffered && p != nil && !p.bearer {
		prefs, ok, err := s.opts.Push.Prefs(c.Request().Context(), p.DeviceID)
		if err != nil {
			return err
		}
		v.Subscribed, v.Approvals, v.Questions, v.HideDetails, v.Delay = ok, prefs.Approvals, prefs.Questions, prefs.HideDetails, prefs.DelaySeconds
		v.Turns, v.Errors = prefs.Turns, prefs.Errors
		v.Muted, v.QuietFrom, v.QuietTo = strings.Join(prefs.MuteProjects, ", "), prefs.QuietFrom, prefs.QuietTo
		for _, name := range s.opts.Agents.Names() {
			v.PushAgents = append(v.PushAgents, views.AgentCheck{Name: name, Label: s.opts.Agents.Label(name),
				Checked: len(prefs.Agents) == 0 || slices.Contains(prefs.Agents, name)})
		}
	}
	var err error
	if v.Devices, err = s.deviceViews(c); err != nil {
		return err
	}
	v.Theme = themeOf(c)
	if s.opts.Settings != nil {
		v.Machine = s.machineView(s.opts.Settings.Get(), "")
	}
	if s.opts.Hooks != nil {
		hv, err := s.hooksView("")
		if err != nil {
			return err
		}
		v.Hooks = &hv
	}
	return s.render(c, http.StatusOK, views.SettingsPage(s.page(c, "Settings"), v))
}
