package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v5"

	"paddock/internal/hookchannel"
	"paddock/internal/hookinstall"
	"paddock/views"
)

// Hooks reads and installs paddock's hooks in the agents' own configs,
// for the settings page. Installing writes the agent's config (a backup
// first), the one write paddock makes there, and only when asked.
type Hooks interface {
	Status() ([]hookinstall.RuntimeStatus, error)
	Plan(runtime string) (hookinstall.InstallPlan, error)
	Install(runtime string) (hookinstall.Result, error)
	// Secret is the hook channel's secret ("" when none), never shown.
	Secret() string
}

var hookStates = map[hookinstall.State]struct{ class, label string }{
	hookinstall.StateInstalled:    {"working", "installed"},
	hookinstall.StatePartial:      {"waiting", "outdated: install updates them"},
	hookinstall.StateNotInstalled: {"input", "not installed"},
	hookinstall.StateAbsent:       {"ended", "agent not installed here"},
}

// hooksView is every agent's hooks as the settings page lists them.
func (s *Server) hooksView(note string) (views.HooksView, error) {
	v := views.HooksView{Note: note}
	sts, err := s.opts.Hooks.Status()
	if sts == nil && err != nil {
		return v, err
	}
	mask := s.masker()
	for _, st := range sts {
		a := views.HookAgent{Runtime: st.Runtime, Label: s.opts.Agents.Label(st.Runtime), Dir: st.Dir}
		if st.Err != nil {
			a.StateClass, a.State = "error", "its config could not be read: "+mask(st.Err.Error())
		} else {
			a.StateClass, a.State = hookStates[st.State].class, hookStates[st.State].label
			a.CanInstall = st.State == hookinstall.StateNotInstalled || st.State == hookinstall.StatePartial
		}
		if st.State != hookinstall.StateAbsent { // its one note says so again
			for _, n := range st.Notes {
				a.Notes = append(a.Notes, mask(n))
			}
		}
		v.Agents = append(v.Agents, a)
	}
	return v, nil
}

// masker hides the hook channel's secret in what the page shows.
func (s *Server) masker() func(string) string { return hookchannel.Masker(s.opts.Hooks.Secret()) }

func (s *Server) hookRuntime(c *echo.Context) (string, error) {
	if s.opts.Hooks == nil {
		return "", newError(http.StatusNotFound, "no_hooks", "This paddock does not install hooks from the page.")
	}
	rt := c.Param("runtime")
	if !slices.Contains(s.opts.Agents.Names(), rt) {
		return "", newError(http.StatusNotFound, "unknown_agent", "No such agent: the agents are "+strings.Join(s.opts.Agents.Names(), ", ")+".")
	}
	return rt, nil
}

// hookPlan is what installing an agent's hooks would change: the diff of
// each file, shown before anything is written.
func (s *Server) hookPlan(c *echo.Context) error {
	rt, err := s.hookRuntime(c)
	if err != nil {
		return err
	}
	p, err := s.opts.Hooks.Plan(rt)
	mask := s.masker()
	v := views.HookPlan{Runtime: rt, Label: s.opts.Agents.Label(rt)}
	switch {
	case err != nil:
		v.Problem = "Its config could not be read: " + mask(err.Error())
	case p.Absent:
		v.Problem = v.Label + " is not installed for this user: there is nothing to hook into."
	case !p.Changed():
		v.Problem = "Already installed: nothing would change."
	default:
		v.Changed = true
		v.Diff = diffLines(mask(p.Diff()), "", true)
	}
	return s.render(c, http.StatusOK, views.HookPlanView(v))
}

// installHooks installs one agent's hooks (backing its config up first)
// and answers with the hooks section again.
func (s *Server) installHooks(c *echo.Context) error {
	rt, err := s.hookRuntime(c)
	if err != nil {
		return err
	}
	res, err := s.opts.Hooks.Install(rt)
	mask := s.masker()
	label := s.opts.Agents.Label(rt)
	var note string
	switch {
	case err != nil:
		note = label + ": not installed: " + mask(err.Error())
	case res.Skipped:
		note = label + " is not installed for this user: nothing was written."
	case !res.Changed:
		note = label + ": already installed; nothing was written."
	default:
		var done []string
		for _, f := range res.Files {
			if f.Action != hookinstall.ActionNone {
				d := string(f.Action) + "d " + f.Path
				if f.Backup != "" {
					d += " (the old one kept as " + f.Backup + ")"
				}
				done = append(done, d)
			}
		}
		note = label + ": hooks installed — " + strings.Join(done, "; ") + ". Agents started from now on use them."
		if s.opts.Audit != nil {
			if aerr := s.opts.Audit.Audit(c.Request().Context(), s.opts.Now(), by(c), "hooks.install", "runtime="+rt); aerr != nil {
				s.log.Warn("hooks installed but not audited", "runtime", rt, "error", aerr)
			}
		}
	}
	if err != nil {
		s.log.Warn("hooks install from the page failed", "runtime", rt, "error", err)
	}
	v, verr := s.hooksView(note)
	if verr != nil {
		return verr
	}
	return s.render(c, http.StatusOK, views.HooksSection(v))
}
