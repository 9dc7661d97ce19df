package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"paddock/internal/auth"
	"paddock/internal/settings"
	"paddock/views"
)

// Settings is what the settings page needs of the machine's settings.
type Settings interface {
	Get() settings.Values
	Defaults() settings.Values
	Set(ctx context.Context, v settings.Values) error
	// Subscribe hears each change of the values in force.
	Subscribe() (<-chan settings.Values, func())
}

// The choices the form offers; a value set otherwise (on the command
// line) is offered too.
var (
	sleepChoices = []time.Duration{0, 15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour}
	checkChoices = []time.Duration{time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second, time.Minute}
	densities    = []views.Option{
		{Value: "low", Label: "Low: approval requests and timers only"},
		{Value: "medium", Label: "Medium: also permission notifications during a tool call"},
		{Value: "high", Label: "High: also notifications with no known tool call"},
	}
)

func sleepLabel(d time.Duration) string {
	if d == 0 {
		return "Never (off)"
	}
	return "After " + durationWords(d) + " idle"
}

func checkLabel(d time.Duration) string { return "Every " + durationWords(d) }

// durationWords is d as the settings say it: "15 min", "1 h", "5 s".
func durationWords(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%d h", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%d s", d/time.Second)
	default:
		return d.String()
	}
}

func durationOptions(all []time.Duration, cur time.Duration, label func(time.Duration) string) []views.Option {
	if !slices.Contains(all, cur) {
		all = append(slices.Clone(all), cur)
		slices.Sort(all)
	}
	out := make([]views.Option, 0, len(all))
	for _, d := range all {
		out = append(out, views.Option{Value: d.String(), Label: label(d)})
	}
	return out
}

// machineView is the machine's settings form over v.
func (s *Server) machineView(v settings.Values, note string) *views.MachineView {
	def := s.opts.Settings.Defaults()
	return &views.MachineView{
		Office: v.Office, SleepIdle: v.SleepIdle.String(), Density: v.Density, ProcessCheck: v.ProcessCheck.String(),
		SleepChoices:   durationOptions(sleepChoices, v.SleepIdle, sleepLabel),
		CheckChoices:   durationOptions(checkChoices, v.ProcessCheck, checkLabel),
		DensityChoices: densities,
		Defaults: fmt.Sprintf("Started with: idle sleep %s, density %s, process check every %s. A value set here wins until it is set back.",
			strings.ToLower(sleepLabel(def.SleepIdle)), def.Density, durationWords(def.ProcessCheck)),
		Note: note,
	}
}

// saveMachineSettings is the machine settings form's Save: every value
// checked before any is kept; a refusal names the value and changes
// nothing.
func (s *Server) saveMachineSettings(c *echo.Context) error {
	if s.opts.Settings == nil {
		return newError(http.StatusNotFound, "no_settings", "This paddock keeps no settings.")
	}
	r := c.Request()
	if err := r.ParseForm(); err != nil {
		return newError(http.StatusBadRequest, "bad_form", "The form could not be read.")
	}
	cur := s.opts.Settings.Get()
	answer := func(v settings.Values, note string) error {
		return s.render(c, http.StatusOK, views.MachineSection(*s.machineView(v, note)))
	}
	v := settings.Values{Office: r.PostForm.Get("office") == "on", Density: r.PostForm.Get("density")}
	for _, f := range []struct {
		name string
		into *time.Duration
	}{{"sleep_idle", &v.SleepIdle}, {"process_check", &v.ProcessCheck}} {
		d, err := time.ParseDuration(r.PostForm.Get(f.name))
		if err != nil {
			return answer(cur, "Not saved: "+f.name+" is a duration such as 30m or 15s.")
		}
		*f.into = d
	}
	var bad *settings.Error
	switch err := s.opts.Settings.Set(r.Context(), v); {
	case errors.As(err, &bad):
		return answer(cur, "Not saved: "+bad.Message+".")
	case err != nil:
		return err
	}
	if s.opts.Audit != nil {
		detail := fmt.Sprintf("sleep_idle=%s density=%s process_check=%s office=%t", v.SleepIdle, v.Density, v.ProcessCheck, v.Office)
		if err := s.opts.Audit.Audit(r.Context(), s.opts.Now(), by(c), "settings.save", detail); err != nil {
			s.log.Warn("settings saved but not audited", "error", err)
		}
	}
	return answer(v, "Saved.")
}

// setTheme stores the theme this device chose (app.js has applied it).
func (s *Server) setTheme(c *echo.Context) error {
	p := principalOf(c)
	if p == nil || p.bearer {
		return newError(http.StatusForbidden, "device_only", "A theme belongs to a paired device; an API token has none.")
	}
	r := c.Request()
	if err := r.ParseForm(); err != nil {
		return newError(http.StatusBadRequest, "bad_form", "The form could not be read.")
	}
	switch err := s.opts.Auth.SetDeviceTheme(r.Context(), p.DeviceID, r.PostForm.Get("theme")); {
	case errors.Is(err, auth.ErrBadTheme):
		return newError(http.StatusBadRequest, "bad_theme", `theme is "light", "dark" or empty (follow the system).`)
	case err != nil:
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
