package web

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"paddock/internal/session"
	"paddock/views"
)

// shownImageTypes are the image formats paddock serves from a history,
// by what the bytes are, whatever the history declares: raster formats
// only (an SVG can carry script).
var shownImageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// sessionImage is GET /s/{runtime}/{id}/images/{n} (and its /api/v1 twin):
// the n-th image of the session's record, counted from 0 in the order
// Events gives them.
func (s *Server) sessionImage(c *echo.Context) error {
	k, err := sessionKey(c)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(c.Param("n"))
	if err != nil || n < 0 {
		return newError(http.StatusBadRequest, "bad_image", "An image is addressed by its number in the session, from 0.")
	}
	evs, err := s.opts.Board.Events(c.Request().Context(), k)
	if err != nil {
		return err
	}
	img, ok := nthImage(evs, n)
	if !ok {
		return newError(http.StatusNotFound, "no_image", "This session has no image with that number.")
	}
	typ := servedImageType(img)
	if typ == "" {
		return newError(http.StatusUnsupportedMediaType, "image_not_shown",
			"This image is not shown: it is too large, unreadable, or not a PNG, JPEG, GIF or WebP.")
	}
	h := c.Response().Header()
	if !strings.HasPrefix(c.Request().URL.Path, "/api/") { // the API's stay no-store
		h.Set("Cache-Control", "private, max-age=300")
	}
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Content-Disposition", "inline")
	return c.Blob(http.StatusOK, typ, []byte(img.Data))
}

// nthImage is the n-th EventImage of evs.
func nthImage(evs []session.Event, n int) (session.Event, bool) {
	for _, e := range evs {
		if e.Kind != session.EventImage {
			continue
		}
		if n == 0 {
			return e, true
		}
		n--
	}
	return session.Event{}, false
}

// servedImageType is the type an image is served as, sniffed from its
// bytes; "" when it is not one paddock shows.
func servedImageType(e session.Event) string {
	if len(e.Data) == 0 {
		return ""
	}
	if t := http.DetectContentType([]byte(e.Data[:min(len(e.Data), 512)])); shownImageTypes[t] {
		return t
	}
	return ""
}

// activityImage is the panel's view of the n-th image of the session at
// base (its page's address).
func activityImage(e session.Event, n int, base string) views.ActivityImage {
	img := views.ActivityImage{MediaType: e.MediaType, Size: e.Size}
	if servedImageType(e) != "" {
		img.URL = base + "/images/" + strconv.Itoa(n)
	}
	return img
}
