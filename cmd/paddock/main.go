// Command paddock serves a phone-friendly HTTPS dashboard over every AI
// coding-agent session on this machine. main only parses the command line
// and wires packages together; the work happens in internal/, web/ and
// certs/.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"paddock/internal/hookchannel"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	// Agents run `paddock hook` on every event: it goes first, before any
	// other setup, and always exits 0.
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		os.Exit(hookMain(hookchannel.ProcessStart(time.Now()), os.Args[2:]))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

const usage = `paddock — a phone dashboard for your AI coding-agent sessions

Usage:
  paddock serve [flags]          start the dashboard (see paddock serve -h)
  paddock pair                   print a new one-time pairing link and QR code
  paddock devices [list]         list paired devices
  paddock devices revoke ID      revoke a paired device
  paddock token create NAME      create an API token for scripts (printed once, alone on the last line)
  paddock token list             list API tokens
  paddock token revoke ID        revoke an API token
  paddock ca                     print the CA certificate path and fingerprint
  paddock hooks install          make every installed agent report to paddock (--runtime R, --dry-run shows the diff)
  paddock hooks uninstall        remove paddock's hooks, and only those (--runtime R, --dry-run)
  paddock hooks status           which agents call paddock's hooks
  paddock sessions list          every session of every agent (--live, --runtime R, --limit N, --json)
  paddock sessions show ID       a session and its newest messages (--runtime R, --limit N, --json); status: without them
  paddock sessions search WORDS  search every conversation (--runtime, --session ID, --project, --since, --until, --limit, --json)
  paddock sessions export ID     one session to a file: -o FILE --runtime R [--format markdown|json|jsonl|text] [--tools] [--force]
  paddock mcp                    an MCP server on stdio for agents: find, read, export, start and hand off sessions
  paddock usage                  tokens and cost per day, project, agent or model (--group, --from, --to, --json)
  paddock index rebuild          build the search index again from the histories (paddock serve stopped)
  paddock hook EVENT             what the agents' hooks run: payload on stdin, always exit 0, no output (see -h)
  paddock version                print the version
`

// run is main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "serve":
		err = cmdServe(ctx, args[1:], stdout, stderr, getenv)
	case "pair":
		err = cmdPair(ctx, args[1:], stdout, stderr, getenv)
	case "devices":
		err = cmdDevices(ctx, args[1:], stdout, stderr, getenv)
	case "token":
		err = cmdToken(ctx, args[1:], stdout, stderr, getenv)
	case "ca":
		err = cmdCA(ctx, args[1:], stdout, stderr, getenv)
	case "hooks":
		err = cmdHooks(ctx, args[1:], stdout, stderr, getenv)
	case "sessions":
		err = cmdSessions(ctx, args[1:], stdout, stderr, getenv)
	case "index":
		err = cmdIndex(ctx, args[1:], stdout, stderr, getenv)
	case "usage":
		err = cmdUsage(ctx, args[1:], stdout, stderr, getenv)
	case "mcp":
		err = cmdMCP(ctx, args[1:], stdout, stderr, getenv)
	case "hook":
		return cmdHook(ctx, time.Now(), args[1:], hookStdin(), stdout, stderr, getenv)
	case "version", "--version", "-v":
		fmt.Fprintln(stdout, "paddock", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "paddock: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		if err == errUsage {
			return 2
		}
		fmt.Fprintln(stderr, "paddock:", err)
		return 1
	}
	return 0
}
