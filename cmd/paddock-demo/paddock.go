package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"paddock/internal/testkit/agentenv"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// buildPaddock compiles the product binary into dir once. The demo runs it
// as a child process, the way a user runs paddock.
func buildPaddock(ctx context.Context, dir string) (string, error) {
	goCmd := os.Getenv("GO")
	if goCmd == "" {
		goCmd = "go"
	}
	bin := filepath.Join(dir, "paddock")
	cmd := exec.CommandContext(ctx, goCmd, "build", "-o", bin, "paddock/cmd/paddock")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building paddock (run make demo from the repository): %v\n%s", err, out)
	}
	return bin, nil
}

// serveProc is a running `paddock serve`.
type serveProc struct {
	cmd      *exec.Cmd
	done     chan struct{} // closed when the process has been waited for
	PairLink string
	URLs     []string
}

// bannerTimeout bounds paddock's start-up (certificates, database).
const bannerTimeout = 60 * time.Second

// startServe runs bin serve with env and args, forwards its stdout (the
// banner: URLs, CA fingerprint, pairing QR and link) to out, its stderr to
// logFile, and returns once the pairing link has been printed.
func startServe(ctx context.Context, bin string, args, env []string, out io.Writer, logFile string) (*serveProc, error) {
	logf, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Env = env
	cmd.Stderr = logf
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		logf.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	p := &serveProc{cmd: cmd, done: make(chan struct{})}
	banner := make(chan string, 64)
	go func() {
		// Owned by the process: ends when paddock closes its stdout.
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(out, line)
			select {
			case banner <- line:
			default:
			}
		}
		close(banner)
	}()
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	timer := time.NewTimer(bannerTimeout)
	defer timer.Stop()
	inURLs := false
	for p.PairLink == "" {
		select {
		case line, ok := <-banner:
			if !ok {
				<-p.done
				return nil, fmt.Errorf("paddock serve exited (%v) before printing a pairing link; see %s:\n%s", cmd.ProcessState, logFile, tail(logFile))
			}
			switch {
			case strings.HasPrefix(line, "paddock is serving"):
				inURLs = true
			case inURLs && strings.HasPrefix(line, "  https://"):
				p.URLs = append(p.URLs, strings.TrimSpace(line))
			case strings.HasPrefix(line, "pair link: "):
				p.PairLink = strings.TrimPrefix(line, "pair link: ")
			default:
				inURLs = false
			}
		case <-ctx.Done():
			p.stop(5 * time.Second)
			return nil, ctx.Err()
		case <-timer.C:
			p.stop(5 * time.Second)
			return nil, fmt.Errorf("paddock serve printed no pairing link within %s; see %s", bannerTimeout, logFile)
		}
	}
	return p, nil
}

// PID is paddock's process id.
func (p *serveProc) PID() int { return p.cmd.Process.Pid }

// stop asks paddock to shut down (SIGINT, as Ctrl-C would), and kills it
// when it has not within grace.
func (p *serveProc) stop(grace time.Duration) error {
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
		return nil
	case <-time.After(grace):
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	return fmt.Errorf("paddock (pid %d) did not stop within %s of SIGINT; killed it", p.PID(), grace)
}

// relayWorks reports whether this paddock has the hook relay the agents'
// hooks would run (`paddock hook`): it must exit 0 on a status event.
// Hooks calling a paddock without it would fail, and Claude Code reads a
// hook's exit status 2 as "block this prompt".
func relayWorks(ctx context.Context, bin, dataDir string, env []string) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "hook", "--runtime", string(agentenv.Claude), "--data-dir", dataDir, "Notification")
	cmd.Env = env
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"Notification","session_id":"paddock-demo-probe","message":"probe"}`)
	return cmd.Run() == nil
}

// tail returns the last lines of a log file, for error messages.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}
