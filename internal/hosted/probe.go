package hosted

import (
	"bytes"
	"cmp"
	"context"
	"os/exec"
	"regexp"
	"slices"
	"sync"
	"time"

	"paddock/internal/launch"
)

// Probe is what one installed CLI's --help said about the flags paddock
// uses to start and resume it.
type Probe struct {
	Runtime string   `json:"runtime"`
	Bin     string   `json:"bin"`
	Missing []string `json:"missing,omitempty"` // flags its --help does not list
	// CanResume: the resume arguments are listed; otherwise Resume,
	// Reconnect and Restart refuse rather than guess.
	CanResume bool   `json:"can_resume"`
	Error     string `json:"error,omitempty"` // --help did not run
}

// probeTimeout bounds one --help (Codex and the Node CLIs start in about a
// second; a hung one must not hold up the rest).
const probeTimeout = 20 * time.Second

// maxHelp bounds what is read of a --help.
const maxHelp = 256 << 10

// probes holds the last Probe per runtime; a runtime not probed yet is
// trusted (the flags were taken from the pinned versions' --help).
type probes struct {
	mu sync.Mutex
	by map[string]Probe
}

func (p *probes) get(runtime string) (Probe, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.by[runtime]
	return r, ok
}

func (p *probes) set(r Probe) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.by == nil {
		p.by = map[string]Probe{}
	}
	p.by[r.Runtime] = r
}

// Probe runs each installed agent CLI's --help (concurrently, bounded) and
// checks that every flag paddock passes to it is still there: a CLI
// upgraded past the versions paddock knows must not be handed a resume
// command it no longer understands. It runs once at start-up; the result
// is logged and shown by Probes.
func (m *Manager) Probe(ctx context.Context) []Probe {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var out []Probe
	for _, rt := range m.Runtimes() {
		rc := m.opts.Recipes[rt]
		bin := m.bin(rc)
		if bin == "" {
			continue
		}
		wg.Go(func() {
			p := probeHelp(ctx, rt, bin, rc)
			m.probes.set(p)
			switch {
			case p.Error != "":
				m.log.Warn("agent CLI's --help did not run; its flags are trusted as pinned", "runtime", rt, "bin", bin, "error", p.Error)
			case len(p.Missing) > 0:
				m.log.Warn("agent CLI's --help lacks flags paddock uses", "runtime", rt, "bin", bin, "missing", p.Missing, "can_resume", p.CanResume)
			default:
				m.log.Debug("agent CLI flags checked", "runtime", rt, "bin", bin)
			}
			mu.Lock()
			out = append(out, p)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.SortFunc(out, func(a, b Probe) int { return cmp.Compare(a.Runtime, b.Runtime) })
	return out
}

// Probes returns the start-up check's results, sorted by runtime.
func (m *Manager) Probes() []Probe {
	m.probes.mu.Lock()
	defer m.probes.mu.Unlock()
	out := make([]Probe, 0, len(m.probes.by))
	for _, p := range m.probes.by {
		p.Missing = slices.Clone(p.Missing)
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Probe) int { return cmp.Compare(a.Runtime, b.Runtime) })
	return out
}

func probeHelp(ctx context.Context, rt, bin string, rc launch.Recipe) Probe {
	p := Probe{Runtime: rt, Bin: bin, CanResume: true}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--help")
	var buf limitedBuffer
	buf.max = maxHelp
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	help := buf.Bytes()
	if err != nil && len(help) == 0 {
		p.Error = err.Error()
		return p
	}
	p.Missing = missingFlags(help, rc.Help)
	if miss := missingFlags(help, rc.ResumeHelp); len(miss) > 0 {
		p.Missing = append(p.Missing, miss...)
		p.CanResume = false
	}
	return p
}

// missingFlags lists the flags (or subcommands) of want that help does not
// show as a word of its own.
func missingFlags(help []byte, want []string) []string {
	var miss []string
	for _, f := range want {
		re := regexp.MustCompile(`(^|[\s,\[(])` + regexp.QuoteMeta(f) + `($|[\s,=\])<])`)
		if !re.Match(help) {
			miss = append(miss, f)
		}
	}
	return miss
}

// limitedBuffer keeps the first max bytes written and discards the rest
// (a CLI printing without end cannot fill paddock's memory).
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
