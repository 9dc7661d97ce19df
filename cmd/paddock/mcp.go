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
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"paddock/internal/agent/registry"
	"paddock/internal/app"
	"paddock/internal/mcpserver"
)

// cmdMCP is `paddock mcp`: the MCP server on stdio, for an agent to use.
func cmdMCP(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, _, err := loadConfig("mcp", args, stderr, getenv, false)
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	c := app.HistoryCatalog(cfg, registry.Default(), log)
	c.Rescan(ctx)
	wd, _ := os.Getwd()
	o := mcpserver.Options{Catalog: c, IndexPath: app.IndexPath(cfg), Workspace: wd, Forbidden: append(c.WatchDirs(), cfg.DataDir),
		Self: getenv("PADDOCK_SESSION"), DefaultAgent: registry.Default().Names()[0], Version: version}
	if tok := getenv("PADDOCK_TOKEN"); tok != "" {
		o.API = &serveAPI{dataDir: cfg.DataDir, token: tok}
	}
	return mcpserver.New(o).Run(ctx, &mcp.StdioTransport{})
}

// serveAPI is the running paddock serve's API, on loopback, trusting its
// own CA.
type serveAPI struct {
	dataDir, token string
}

func (a *serveAPI) Post(ctx context.Context, path string, body, out any) error {
	st, ok := app.ServeRunning(a.dataDir)
	if !ok {
		return mcpserver.ErrNoServe
	}
	pem, err := os.ReadFile(filepath.Join(a.dataDir, "ca.pem"))
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://127.0.0.1:"+strconv.Itoa(st.HTTPSPort)+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+a.token)
	req.Header.Set("Content-Type", "application/json")
	hc := &http.Client{Timeout: 11 * time.Minute, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error struct{ Code, Message string }
		}
		if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
			return fmt.Errorf("%s (%s)", e.Error.Message, e.Error.Code)
		}
		return fmt.Errorf("paddock serve answered %s", resp.Status)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return errors.New("paddock serve's answer is not the JSON expected: " + err.Error())
	}
	return nil
}
