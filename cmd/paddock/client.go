package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"paddock/internal/app"
	"paddock/internal/config"
	"paddock/internal/mcpserver"
)

// serveClient asks the running paddock serve through its API, on
// loopback over HTTPS, trusting serve's own CA, with an API token.
type serveClient struct {
	port  int
	token string
	// renew, when set, makes a new token after serve refused this one
	// (the command line's own token, revoked): tried once.
	renew func(ctx context.Context) (string, error)
	http  *http.Client
}

// errNoServe is a command that needs paddock serve when none runs.
var errNoServe = errors.New("paddock serve is not running: start it (make run, or paddock serve) and try again")

// cliTokenFile is the command line's own API token in the data dir
// (mode 0600), made the first time a command asks serve, so that the
// commands see what serve sees without the user handing them a token.
const cliTokenFile = "cli-token"

// newServeClient is a client of the serve running over cfg's data dir,
// or nil when none runs. Its token is token when given, else (with own)
// the command line's own.
func newServeClient(ctx context.Context, cfg config.Config, token string, own bool, stderr io.Writer) (*serveClient, error) {
	st, ok := app.ServeRunning(cfg.DataDir)
	if !ok {
		return nil, nil
	}
	pem, err := os.ReadFile(filepath.Join(cfg.DataDir, "ca.pem"))
	if err != nil {
		return nil, fmt.Errorf("paddock serve runs, but its CA is not readable: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("paddock serve runs, but its ca.pem holds no certificate")
	}
	c := &serveClient{port: st.HTTPSPort, http: &http.Client{Timeout: 11 * time.Minute,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}}
	if token != "" || !own {
		c.token = token
		return c, nil
	}
	c.renew = func(ctx context.Context) (string, error) { return makeCLIToken(ctx, cfg, stderr) }
	path := filepath.Join(cfg.DataDir, cliTokenFile)
	if b, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(b)) > 0 {
		c.token = string(bytes.TrimSpace(b))
		return c, nil
	}
	if c.token, err = c.renew(ctx); err != nil {
		return nil, err
	}
	c.renew = nil // just made: a refusal is not a stale token
	return c, nil
}

// makeCLIToken makes the command line's own token and keeps it in the
// data dir, readable by this user only.
func makeCLIToken(ctx context.Context, cfg config.Config, stderr io.Writer) (string, error) {
	a, err := app.OpenData(ctx, cfg, newLogger(stderr, slog.LevelError))
	if err != nil {
		return "", err
	}
	defer a.Close()
	tok, _, err := a.Auth.CreateToken(ctx, "command line")
	if err != nil {
		return "", err
	}
	path := filepath.Join(cfg.DataDir, cliTokenFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(tok+"\n"), 0o600); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tok, nil
}

// get decodes GET path's answer into out.
func (c *serveClient) get(ctx context.Context, path string, out any) error {
	return c.do(ctx, http.MethodGet, path, nil, out)
}

// post sends body as JSON and decodes the answer into out (when not nil).
func (c *serveClient) post(ctx context.Context, path string, body, out any) error {
	return c.do(ctx, http.MethodPost, path, body, out)
}

func (c *serveClient) do(ctx context.Context, method, path string, body, out any) error {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return err
		}
	}
	status, answer, err := c.send(ctx, method, path, data)
	if err == nil && status == http.StatusUnauthorized && c.renew != nil {
		// The command line's own token was revoked: make another, once.
		tok, rerr := c.renew(ctx)
		if rerr != nil {
			return rerr
		}
		c.token, c.renew = tok, nil
		status, answer, err = c.send(ctx, method, path, data)
	}
	if err != nil {
		return err
	}
	if status/100 != 2 {
		var e struct {
			Error struct{ Code, Message string }
		}
		if json.Unmarshal(answer, &e) == nil && e.Error.Message != "" {
			return fmt.Errorf("%s (%s)", e.Error.Message, e.Error.Code)
		}
		return fmt.Errorf("paddock serve answered %d %s", status, http.StatusText(status))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return errors.New("paddock serve's answer is not the JSON expected: " + err.Error())
	}
	return nil
}

// maxAnswer bounds what the client reads of one answer.
const maxAnswer = 64 << 20

func (c *serveClient) send(ctx context.Context, method, path string, data []byte) (int, []byte, error) {
	var body io.Reader
	if data != nil {
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, "https://127.0.0.1:"+strconv.Itoa(c.port)+path, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if data != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("paddock serve did not answer: %w", err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, answer, nil
}

// mcpAPI is serve's API as the MCP server uses it: dialled per call
// (serve may start after the agent did), with the token the agent was
// given.
type mcpAPI struct {
	cfg   config.Config
	token string
}

func (a mcpAPI) Post(ctx context.Context, path string, body, out any) error {
	c, err := newServeClient(ctx, a.cfg, a.token, false, io.Discard)
	if err != nil {
		return err
	}
	if c == nil {
		return mcpserver.ErrNoServe
	}
	return c.post(ctx, path, body, out)
}

// trimKey accepts "runtime:id" for --runtime and ID given together.
func trimKey(runtime, id string) (string, string) {
	if runtime == "" {
		if rt, rest, ok := strings.Cut(id, ":"); ok {
			return rt, rest
		}
	}
	return runtime, id
}
