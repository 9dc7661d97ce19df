package web

import (
	"net"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"
)

// newHTTPS lists every route of the dashboard in one place. Public routes:
// pairing, the CA page and downloads, static assets, health. Everything
// else needs a paired device or an API token.
func (s *Server) newHTTPS() *echo.Echo {
	e := echo.NewWithConfig(echo.Config{Logger: s.log, HTTPErrorHandler: s.handleError})
	e.Use(s.logRequests, s.recoverPanics, limitBody, securityHeaders, s.checkHost, s.identify, s.checkCSRF)

	// Public.
	e.GET("/pair", s.pairPage)
	e.POST("/pair", s.pairSubmit)
	e.GET("/ca", s.caPage)
	e.GET("/ca.pem", s.caPEM)
	e.GET("/ca.crt", s.caDER)
	e.GET("/ca.mobileconfig", s.caProfile)
	e.GET("/static/*", s.staticAsset)
	e.GET("/favicon.svg", s.favicon)
	e.GET("/sw.js", s.serviceWorker)
	e.GET("/favicon.ico", s.favicon)
	e.GET("/api/v1/health", s.apiHealth)
	// A notification's action: its capability is the credential.
	e.POST("/push/act", s.pushAct)

	// Paired devices and tokens only.
	a := e.Group("", requireAuth)
	a.GET("/", s.boardPage)
	a.GET("/board/more", s.boardMore)
	a.GET("/inbox", s.inboxPage)
	a.GET("/settings", s.settingsPage)
	a.POST("/settings/machine", s.saveMachineSettings)
	a.POST("/settings/theme", s.setTheme)
	a.GET("/settings/hooks/:runtime/plan", s.hookPlan)
	a.POST("/settings/hooks/:runtime/install", s.installHooks)
	a.POST("/settings/devices/pair", s.pairOffer)
	a.POST("/settings/devices/:id/rename", s.renameDevice)
	a.POST("/settings/devices/:id/revoke", s.revokeDevice)
	a.GET("/api/v1/push/key", s.apiPushKey)
	a.POST("/api/v1/push/subscriptions", s.apiPushSubscribe)
	a.DELETE("/api/v1/push/subscriptions", s.apiPushUnsubscribe)
	a.POST("/api/v1/push/test", s.apiPushTest)
	a.GET("/s/:runtime/:id", s.sessionPage)
	a.GET("/s/:runtime/:id/messages", s.olderMessages)
	a.GET("/s/:runtime/:id/activity", s.sessionActivity)
	a.GET("/s/:runtime/:id/images/:n", s.sessionImage)
	a.GET("/s/:runtime/:id/export", s.exportSession)
	a.GET("/s/:runtime/:id/agents/:agent", s.subagentPage)
	a.GET("/ws", s.websocket)
	a.GET("/new", s.newSessionPage)
	a.POST("/new", s.newSessionSubmit)
	a.POST("/s/:runtime/:id/read", s.markRead)
	a.POST("/s/:runtime/:id/send", s.sendFromPage)
	a.POST("/s/:runtime/:id/review", s.sendReview)
	a.POST("/s/:runtime/:id/handoff", s.handoffFromPage)
	a.POST("/s/:runtime/:id/control/:action", s.controlFromPage)
	a.POST("/s/:runtime/:id/key/:key", s.keyFromPage)
	a.POST("/s/:runtime/:id/delete", s.deleteFromPage)
	a.GET("/api/v1/sessions/:runtime/:id/events", s.apiEvents)
	a.GET("/api/v1/search", s.apiSearch)
	a.POST("/api/v1/handoff", s.apiHandoff)
	a.GET("/search", s.searchPage)
	a.GET("/usage", s.usagePage)
	a.GET("/usage/export", s.usageExport)
	a.GET("/api/v1/usage", s.apiUsage)
	a.GET("/api/v1/sessions/:runtime/:id/usage", s.apiSessionUsage)
	a.GET("/api/v1/sessions/:runtime/:id/images/:n", s.sessionImage)
	a.GET("/api/v1/sessions/:runtime/:id/export", s.exportSession)
	a.DELETE("/api/v1/sessions/:runtime/:id", s.apiDelete)
	a.POST("/logout", s.logout)
	a.POST("/approvals/:id", s.decideFromPage)
	a.GET("/audit", s.auditPage)
	a.GET("/api/v1/audit", s.apiAudit)
	a.GET("/api/v1/approvals", s.apiApprovals)
	a.POST("/api/v1/approvals/:id", s.apiDecide)
	a.GET("/api/v1/questions", s.apiQuestions)
	a.POST("/api/v1/questions/:id", s.apiDecide)
	a.GET("/api/v1/sessions", s.apiSessions)
	a.GET("/api/v1/sessions/:runtime/:id", s.apiSession)
	a.GET("/api/v1/sessions/:runtime/:id/messages", s.apiMessages)
	a.GET("/api/v1/sessions/:runtime/:id/agents/:agent/messages", s.apiSubagentMessages)
	a.POST("/api/v1/sessions", s.apiCreateSession)
	a.POST("/api/v1/sessions/:runtime/:id/message", s.apiSendMessage)
	a.POST("/api/v1/sessions/:runtime/:id/keys", s.apiKeys)
	a.GET("/api/v1/sessions/:runtime/:id/screen", s.apiScreen)
	a.POST("/api/v1/sessions/:runtime/:id/resume", s.apiResume)
	a.POST("/api/v1/sessions/:runtime/:id/reconnect", s.apiReconnect)
	a.POST("/api/v1/sessions/:runtime/:id/:action", s.apiControl)
	return e
}

// newPlain serves the plain-HTTP port: only what a phone needs before it
// trusts the CA, and a redirect to HTTPS for the rest.
func (s *Server) newPlain() *echo.Echo {
	e := echo.NewWithConfig(echo.Config{Logger: s.log, HTTPErrorHandler: s.handleError})
	e.Use(s.logRequests, s.recoverPanics, limitBody, securityHeaders, s.checkHost, s.burnPlainCredentials)
	e.GET("/", s.caPage)
	e.GET("/pair", s.plainPair)
	e.GET("/ca", s.caPage)
	e.GET("/ca.pem", s.caPEM)
	e.GET("/ca.crt", s.caDER)
	e.GET("/ca.mobileconfig", s.caProfile)
	e.GET("/static/*", s.staticAsset)
	e.GET("/favicon.svg", s.favicon)
	e.RouteNotFound("/*", s.toHTTPS)
	return e
}

// httpsURL is the dashboard's address as reached through the given Host.
func (s *Server) httpsURL(host string) string {
	h := hostName(host)
	if ip := net.ParseIP(h); ip != nil && ip.To4() == nil {
		h = "[" + h + "]"
	}
	if s.opts.HTTPSPort == 443 || s.opts.HTTPSPort == 0 {
		return "https://" + h
	}
	return "https://" + h + ":" + strconv.Itoa(s.opts.HTTPSPort)
}

func (s *Server) toHTTPS(c *echo.Context) error {
	return c.Redirect(http.StatusPermanentRedirect, s.httpsURL(c.Request().Host)+c.Request().URL.RequestURI())
}
