package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v5"

	"paddock/internal/auth"
	"paddock/views"
)

// deviceViews are the paired devices not revoked, newest first.
func (s *Server) deviceViews(c *echo.Context) ([]views.DeviceView, error) {
	ds, err := s.opts.Auth.ListDevices(c.Request().Context())
	if err != nil {
		return nil, err
	}
	me := ""
	if p := principalOf(c); p != nil && !p.bearer {
		me = p.DeviceID
	}
	now := s.opts.Now()
	var out []views.DeviceView
	for _, d := range ds {
		if d.Revoked() {
			continue
		}
		out = append(out, views.DeviceView{ID: d.ID, Name: d.Name, This: d.ID == me,
			Created: relTime(now, d.CreatedAt), CreatedISO: isoTime(d.CreatedAt),
			LastSeen: relTime(now, d.LastSeenAt), LastSeenISO: isoTime(d.LastSeenAt)})
	}
	return out, nil
}

// devicesAnswer is the devices section again, saying what happened.
func (s *Server) devicesAnswer(c *echo.Context, note string) error {
	ds, err := s.deviceViews(c)
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.DevicesSection(views.Settings{Devices: ds, DevicesNote: note}))
}

// renameDevice is the settings page's Rename.
func (s *Server) renameDevice(c *echo.Context) error {
	r := c.Request()
	if err := r.ParseForm(); err != nil {
		return newError(http.StatusBadRequest, "bad_form", "The form could not be read.")
	}
	switch err := s.opts.Auth.RenameDevice(r.Context(), c.Param("id"), r.PostForm.Get("name")); {
	case errors.Is(err, auth.ErrBadName):
		return s.devicesAnswer(c, "Not renamed: a name is 1 to 60 characters on one line.")
	case errors.Is(err, auth.ErrNotFound):
		return s.devicesAnswer(c, "Not renamed: that device is no longer paired.")
	case err != nil:
		return err
	}
	return s.devicesAnswer(c, "Renamed.")
}

// revokeDevice is the settings page's Revoke: that device is signed out at
// once (its open pages lose their live feed within a ping period). A
// device revoking itself is sent to pairing.
func (s *Server) revokeDevice(c *echo.Context) error {
	id := c.Param("id")
	switch err := s.opts.Auth.RevokeDevice(c.Request().Context(), id); {
	case errors.Is(err, auth.ErrNotFound):
		return s.devicesAnswer(c, "That device is no longer paired.")
	case err != nil:
		return err
	}
	if p := principalOf(c); p != nil && p.DeviceID == id {
		c.Response().Header().Set("HX-Redirect", "/pair")
		return c.NoContent(http.StatusOK)
	}
	return s.devicesAnswer(c, "Revoked: that device is signed out.")
}
