package web

import (
	"encoding/pem"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"paddock/certs"
	"paddock/views"
)

// caPage explains how to trust paddock's CA on iOS and Android and shows
// its fingerprint. It is public, over HTTPS and plain HTTP alike: a phone
// needs it before it can trust anything else.
func (s *Server) caPage(c *echo.Context) error {
	v := views.CA{
		PEMURL:       "/ca.pem",
		DERURL:       "/ca.crt",
		ProfileURL:   "/ca.mobileconfig",
		DashboardURL: s.httpsURL(c.Request().Host) + "/",
	}
	if s.opts.CA != nil && len(s.opts.CA.CAPEM()) > 0 {
		v.HasCA = true
		v.Fingerprint = s.opts.CA.CAFingerprint()
		v.Platform = platformOf(c.Request().UserAgent())
		origin := s.httpsURL(c.Request().Host)
		v.TrustCheckURL = origin + s.assets.URL("icon.svg")
		// The check loads that image from the HTTPS address, which is
		// another origin when this page came over plain HTTP.
		c.Response().Header().Set("Content-Security-Policy", strings.Replace(contentSecurityPolicy, "img-src 'self' data:", "img-src 'self' data: "+origin, 1))
	}
	return s.render(c, http.StatusOK, views.CAPage(s.page(c, "Certificate"), v))
}

// platformOf reads the device's platform from its user agent, for the
// steps that fit it; "" when it cannot tell (an iPad asking for the
// desktop site says it is a Mac).
func platformOf(ua string) string {
	switch {
	case strings.Contains(ua, "iPhone"), strings.Contains(ua, "iPad"), strings.Contains(ua, "iPod"):
		return "ios"
	case strings.Contains(ua, "Android"):
		return "android"
	case strings.Contains(ua, "Macintosh"), strings.Contains(ua, "Mac OS X"):
		return "macos"
	case strings.Contains(ua, "Windows"):
		return "windows"
	case strings.Contains(ua, "Linux"), strings.Contains(ua, "X11"):
		return "linux"
	}
	return ""
}

func (s *Server) caBytes() ([]byte, error) {
	if s.opts.CA == nil || len(s.opts.CA.CAPEM()) == 0 {
		return nil, newError(http.StatusNotFound, "no_ca", "This paddock uses a user-supplied certificate; there is no CA to download.")
	}
	return s.opts.CA.CAPEM(), nil
}

func (s *Server) caPEM(c *echo.Context) error {
	b, err := s.caBytes()
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="paddock-ca.pem"`)
	return c.Blob(http.StatusOK, "application/x-pem-file", b)
}

// caDER serves the CA as DER, which Android's certificate installer takes.
func (s *Server) caDER(c *echo.Context) error {
	b, err := s.caBytes()
	if err != nil {
		return err
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		return newError(http.StatusInternalServerError, "bad_ca", "paddock's CA file could not be read.")
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="paddock-ca.crt"`)
	return c.Blob(http.StatusOK, "application/x-x509-ca-cert", blk.Bytes)
}

// caProfile serves an iOS configuration profile that installs the CA.
func (s *Server) caProfile(c *echo.Context) error {
	b, err := s.caBytes()
	if err != nil {
		return err
	}
	prof, err := certs.MobileConfig(b, "paddock local CA", s.opts.CA.CAFingerprint())
	if err != nil {
		return err
	}
	c.Response().Header().Set("Content-Disposition", `attachment; filename="paddock.mobileconfig"`)
	return c.Blob(http.StatusOK, "application/x-apple-aspen-config", prof)
}
