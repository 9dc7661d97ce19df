package main

import (
	"context"
	"io"
	"os"

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
		Self: getenv("PADDOCK_SESSION"), DefaultAgent: registry.Default().Names()[0], Agents: registry.Default().Names(), Version: version}
	if tok := getenv("PADDOCK_TOKEN"); tok != "" {
		o.API = mcpAPI{cfg: cfg, token: tok}
	}
	return mcpserver.New(o).Run(ctx, &mcp.StdioTransport{})
}
