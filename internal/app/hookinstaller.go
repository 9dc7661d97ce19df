package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"paddock/internal/hookchannel"
	"paddock/internal/hookinstall"
)

// hookInstaller installs paddock's hooks for the settings page as
// `paddock hooks install` does with no flags: the hooks run this binary
// and name this data dir.
type hookInstaller struct {
	hookinstall.Installer
	dataDir string
	refuse  error // why this binary cannot be the hooks' (go run)
}

func newHookInstaller(specs []hookinstall.Spec, dataDir string) *hookInstaller {
	h := &hookInstaller{Installer: hookinstall.Installer{Options: hookinstall.Options{Specs: specs, DataDir: dataDir, Env: os.Getenv}}, dataDir: dataDir}
	bin, err := os.Executable()
	switch {
	case err != nil:
		h.refuse = errors.New("paddock cannot tell where its binary is, so the hooks would run nothing; use paddock hooks install --binary PATH")
	case strings.Contains(bin, string(filepath.Separator)+"go-build"):
		h.refuse = errors.New("this paddock runs from a temporary build (go run), and the hooks would run a binary that goes away; build it (make build) and run that")
	}
	if h.refuse != nil {
		// Status and plans still compare entries with a binary's path.
		bin = filepath.Join(os.TempDir(), "paddock")
	}
	h.Options.Binary = bin
	return h
}

// Install refuses when the hooks would run a binary that is not there
// to stay.
func (h *hookInstaller) Install(runtime string) (hookinstall.Result, error) {
	if h.refuse != nil {
		return hookinstall.Result{}, h.refuse
	}
	return h.Installer.Install(runtime)
}

// Secret is the hook channel's secret, masked in what the page shows (""
// when there is none).
func (h *hookInstaller) Secret() string {
	s, err := hookchannel.ReadSecret(h.dataDir)
	if err != nil {
		return ""
	}
	return s
}
