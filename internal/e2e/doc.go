// Package e2e holds paddock's end-to-end tests: the real paddock binary
// (internal/testkit/servetest) against the pinned real agent CLIs in tmux
// and a real browser (Debian's chromium through chromedp), and the
// benchmarks that measure it from outside (hook to websocket frame, the
// permission round trip). Its own package so that a plain `go test ./...`
// keeps every test binary under go test's default ten-minute timeout;
// `make test` runs it with the rest.
package e2e
