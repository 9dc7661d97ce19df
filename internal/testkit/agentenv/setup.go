package agentenv

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/user"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Config says where to set a CLI up.
type Config struct {
	// Home is the fake HOME; it is created when missing. Several CLIs (and
	// several projects of one CLI) may share one Home: each recipe adds to
	// the files the others wrote rather than replacing them.
	Home string
	// Cwd is the project directory the CLI runs in; default <Home>/proj.
	// It is created when missing.
	Cwd string
	// ModelURL is the mock model's base URL without /v1
	// (mockmodel.Server.URL).
	ModelURL string
	// Bin is the CLI's command; default Bin(cli).
	Bin string
}

// Setup is one CLI configured in a fake HOME against a mock model, ready to
// run in a Pane (Spec). Fields may be adjusted before it starts (append to
// Argv, Setenv).
type Setup struct {
	CLI CLI
	// Home is the fake HOME and Cwd the project directory, both with
	// symlinks resolved: the CLIs key their state by the resolved cwd
	// (Claude's projects/<path>, Codex's trusted projects).
	Home, Cwd string
	// Env is the CLI's complete environment: nothing is inherited from
	// the calling process (a developer's real API keys must never reach a
	// CLI run against the mock).
	Env []string
	// Argv starts the CLI interactively; Argv[0] is absolute.
	Argv []string
	// Ready matches the screen once the CLI waits for its first prompt.
	Ready *regexp.Regexp
	// APIKey is the key the CLI sends to the mock model.
	APIKey string
	// Port is OpenCode's HTTP server port (--port); 0 for the others.
	Port int
	// Exit is how a person leaves the CLI.
	Exit Exit
	// Continue are the arguments (after Argv[0]) that reopen the most
	// recent session in Cwd, for a resumed session; ContinueReady matches
	// the screen once that session waits for a prompt (ReadyAfterContinue).
	Continue      []string
	ContinueReady *regexp.Regexp
	// Dialogs are the CLI's approval and question prompts.
	Dialogs Dialogs
}

// Dialogs are how a CLI's approval and question prompts look on screen and
// which keys answer them, as seen on the pinned version. A nil regexp means
// the CLI has no such prompt against the mock: Pi asks nothing (it runs
// tools without approval and offers no question tool).
type Dialogs struct {
	// Approval matches the screen while a tool call waits for approval;
	// Approve allows it once, Deny refuses it.
	Approval      *regexp.Regexp
	Approve, Deny []string
	// Question matches the screen while the mock's question (ASK) waits
	// for an answer; Answer picks the first option ("Red").
	Question *regexp.Regexp
	Answer   []string
	// QuestionMode are keys that make the question tool available, pressed
	// before an ASK prompt (Codex offers it only in Plan mode).
	QuestionMode []string
}

// Exit is a CLI's own way out: Text typed and submitted, or else Keys
// pressed (tmux key names).
type Exit struct {
	Text string
	Keys []string
}

// Setenv sets (or replaces) one variable in s.Env.
func (s *Setup) Setenv(key, value string) {
	prefix := key + "="
	for i, kv := range s.Env {
		if strings.HasPrefix(kv, prefix) {
			s.Env[i] = prefix + value
			return
		}
	}
	s.Env = append(s.Env, prefix+value)
}

// Getenv returns the value of key in s.Env ("" when unset).
func (s *Setup) Getenv(key string) string {
	prefix := key + "="
	for _, kv := range s.Env {
		if v, ok := strings.CutPrefix(kv, prefix); ok {
			return v
		}
	}
	return ""
}

// ReadyAfterContinue is ContinueReady, else Ready.
func (s *Setup) ReadyAfterContinue() *regexp.Regexp {
	if s.ContinueReady != nil {
		return s.ContinueReady
	}
	return s.Ready
}

// Spec is what runs the CLI in a Pane named name.
func (s *Setup) Spec(name string) Spec {
	return Spec{Name: name, Argv: append([]string(nil), s.Argv...), Env: append([]string(nil), s.Env...), Dir: s.Cwd}
}

// New configures cli in c.Home; see the per-CLI notes in the recipes below.
func New(cli CLI, c Config) (*Setup, error) {
	recipe, ok := recipes[cli]
	if !ok {
		return nil, fmt.Errorf("agentenv: unknown CLI %q", cli)
	}
	if c.ModelURL == "" {
		return nil, errors.New("agentenv: no model URL")
	}
	s, err := newSetup(cli, c)
	if err != nil {
		return nil, err
	}
	if err := recipe(s, c.ModelURL); err != nil {
		return nil, fmt.Errorf("agentenv: configuring %s: %w", cli, err)
	}
	return s, nil
}

var recipes = map[CLI]func(*Setup, string) error{
	Claude:   claudeRecipe,
	Codex:    codexRecipe,
	OpenCode: openCodeRecipe,
	Pi:       piRecipe,
	Kimi:     kimiRecipe,
}

// newSetup makes the fake HOME and project directory and the environment
// every CLI gets.
func newSetup(cli CLI, c Config) (*Setup, error) {
	bin := c.Bin
	if bin == "" {
		var err error
		if bin, err = Bin(cli); err != nil {
			return nil, err
		}
	}
	if c.Home == "" {
		return nil, errors.New("agentenv: no home directory")
	}
	if err := os.MkdirAll(c.Home, 0o755); err != nil {
		return nil, err
	}
	home, err := filepath.EvalSymlinks(c.Home)
	if err != nil {
		return nil, err
	}
	home, err = filepath.Abs(home)
	if err != nil {
		return nil, err
	}
	cwd := c.Cwd
	if cwd == "" {
		cwd = filepath.Join(home, "proj")
	}
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		return nil, err
	}
	if cwd, err = filepath.EvalSymlinks(cwd); err != nil {
		return nil, err
	}
	username := "paddock"
	if u, err := user.Current(); err == nil {
		username = u.Username
	}
	return &Setup{CLI: cli, Home: home, Cwd: cwd, Env: BaseEnv(home, username), Argv: []string{bin}}, nil
}

// BaseEnv is the environment every CLI (and make demo's paddock) gets: the
// fake HOME, XDG dirs inside it, the host PATH (for node, bash and git) and
// a UTF-8 locale, and nothing else from the host.
func BaseEnv(home, username string) []string {
	return []string{
		"HOME=" + home,
		"USER=" + username,
		"LOGNAME=" + username,
		// The CLIs themselves are run by absolute path.
		"PATH=" + os.Getenv("PATH"),
		"SHELL=/bin/bash",
		// Without a UTF-8 locale tmux replaces the TUIs' box drawing and
		// prompt glyphs (❯ ›) with underscores.
		"LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
	}
}

// ClaudeAPIKey is the key Claude Code is given; its last 20 characters are
// pre-approved in ~/.claude.json.
const ClaudeAPIKey = "sk-ant-api03-paddock-test-key-0123456789abcdef"

// claudeRecipe: onboarding done, the project trusted and the API key
// approved in ~/.claude.json (else the TUI stops at those screens),
// ANTHROPIC_BASE_URL at the mock, non-essential traffic and the
// auto-updater off, and --permission-mode default so tool calls prompt
// (2.1.328 defaults to auto; bypassPermissions is refused as root). The
// Claude config dir ~/.claude is created, so hook installers find it.
func claudeRecipe(s *Setup, modelURL string) error {
	s.APIKey = ClaudeAPIKey
	path := filepath.Join(s.Home, ".claude.json")
	cfg := map[string]any{}
	if err := readJSON(path, &cfg); err != nil {
		return err
	}
	projects, _ := cfg["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	proj, _ := projects[s.Cwd].(map[string]any)
	if proj == nil {
		proj = map[string]any{}
	}
	proj["hasTrustDialogAccepted"] = true
	projects[s.Cwd] = proj
	cfg["projects"] = projects
	cfg["hasCompletedOnboarding"] = true
	cfg["customApiKeyResponses"] = map[string]any{
		"approved": []string{s.APIKey[len(s.APIKey)-20:]},
		"rejected": []string{},
	}
	if err := writeJSON(path, cfg); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(s.Home, ".claude"), 0o755); err != nil {
		return err
	}
	s.Env = append(s.Env,
		"ANTHROPIC_BASE_URL="+modelURL,
		"ANTHROPIC_API_KEY="+s.APIKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
	)
	s.Argv = append(s.Argv, "--permission-mode", "default")
	// The status line shows the permission mode once the prompt is live.
	s.Ready = regexp.MustCompile(`manual mode on`)
	s.Exit = Exit{Text: "/exit"}
	s.Continue = []string{"--continue", "--permission-mode", "default"}
	s.Dialogs = Dialogs{
		Approval: regexp.MustCompile(`Do you want to proceed\?`),
		Approve:  []string{"Enter"},
		Deny:     []string{"4"}, // "4. No"
		Question: regexp.MustCompile(`Chat about this`),
		Answer:   []string{"Enter"},
	}
	return nil
}

// CodexBypassHookTrust is the flag that lets Codex run hooks from
// hooks.json without the trust-by-hash review.
const CodexBypassHookTrust = "--dangerously-bypass-hook-trust"

// codexRecipe: CODEX_HOME (which must exist beforehand) with a config.toml
// naming a Responses-API provider at the mock, approvals on-request in a
// workspace-write sandbox, and the project trusted (no "trust this folder?"
// screen). A second project in the same HOME only adds its trust entry.
//
// Codex 0.169 also starts a detached app-server daemon that outlives the
// TUI; Tmux.Close kills it with the rest. Append `[features]
// daemon_auto_start = false` to config.toml to run without it.
func codexRecipe(s *Setup, modelURL string) error {
	s.APIKey = "sk-mock-codex"
	codexHome := filepath.Join(s.Home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		return err
	}
	path := filepath.Join(codexHome, "config.toml")
	trust := fmt.Sprintf("\n[projects.%q]\ntrust_level = \"trusted\"\n", s.Cwd)
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		err = writeFile(path, fmt.Sprintf(`model = "mock-model"
model_provider = "mock"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = %q
wire_api = "responses"
env_key = "MOCK_API_KEY"
requires_openai_auth = false
`, modelURL+"/v1")+trust)
	case err == nil && !strings.Contains(string(old), trust):
		err = writeFile(path, string(old)+trust)
	}
	if err != nil {
		return err
	}
	s.Env = append(s.Env, "CODEX_HOME="+codexHome, "MOCK_API_KEY="+s.APIKey)
	// The footer names the model once the composer is live.
	s.Ready = regexp.MustCompile(`mock-model`)
	s.Exit = Exit{Text: "/quit"}
	s.Continue = []string{"resume", "--last"}
	s.Dialogs = Dialogs{
		Approval: regexp.MustCompile(`Would you like to run the following command\?`),
		Approve:  []string{"y"},
		Deny:     []string{"Escape"}, // interrupts the turn
		// In Default mode request_user_input answers "unavailable".
		QuestionMode: []string{"BTab"},
		Question:     regexp.MustCompile(`enter to submit answer`),
		Answer:       []string{"Enter"},
	}
	return nil
}

// openCodeRecipe: an @ai-sdk/openai-compatible provider at the mock (also
// used for titles), permission bash/edit = ask, updates, sharing and the
// models.dev fetch off, XDG dirs inside the fake HOME, and --port so the
// TUI's own HTTP server (sessions, permissions) is reachable on
// 127.0.0.1:s.Port.
func openCodeRecipe(s *Setup, modelURL string) error {
	s.APIKey = "sk-mock-opencode"
	port, err := freePort()
	if err != nil {
		return err
	}
	s.Port = port
	err = writeJSON(filepath.Join(s.Home, ".config", "opencode", "opencode.json"), map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"model":       "mock/mock-model",
		"small_model": "mock/mock-model",
		"autoupdate":  false,
		"share":       "disabled",
		"provider": map[string]any{"mock": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Mock",
			"options": map[string]any{"baseURL": modelURL + "/v1", "apiKey": s.APIKey},
			"models": map[string]any{"mock-model": map[string]any{
				"name": "Mock Model", "tool_call": true,
				// Declared to take images, as real models do: else OpenCode
				// replaces an attached or read image with an error text.
				"attachment": true, "modalities": map[string]any{"input": []string{"text", "image"}, "output": []string{"text"}},
				"limit": map[string]any{"context": 128000, "output": 4096},
			}},
		}},
		"permission": map[string]any{"bash": "ask", "edit": "ask"},
	})
	if err != nil {
		return err
	}
	s.Env = append(s.Env,
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1",
	)
	server := []string{"--port", strconv.Itoa(s.Port), "--hostname", "127.0.0.1"}
	s.Argv = append(s.Argv, server...)
	s.Ready = regexp.MustCompile(`Ask anything`)
	s.Exit = Exit{Text: "/exit"}
	s.Continue = append([]string{"--continue"}, server...)
	// A reopened session shows its messages, not the placeholder; the
	// prompt's agent · model · provider line is drawn with the input.
	s.ContinueReady = regexp.MustCompile(`Build · Mock Model Mock`)
	s.Dialogs = Dialogs{
		Approval: regexp.MustCompile(`Permission required`),
		Approve:  []string{"Enter"},  // "Allow once" is preselected
		Deny:     []string{"Escape"}, // Reject
		Question: regexp.MustCompile(`enter submit\s+esc dismiss`),
		Answer:   []string{"Enter"},
	}
	return nil
}

// piRecipe: a custom "mock" provider (openai-completions) in
// ~/.pi/agent/models.json as the default model, offline mode (no fd/rg
// downloads, no version check, no telemetry), and the changelog marked as
// seen.
func piRecipe(s *Setup, modelURL string) error {
	s.APIKey = "sk-mock-pi"
	agentDir := filepath.Join(s.Home, ".pi", "agent")
	err := writeJSON(filepath.Join(agentDir, "models.json"), map[string]any{
		"providers": map[string]any{"mock": map[string]any{
			"baseUrl": modelURL + "/v1",
			"api":     "openai-completions",
			"apiKey":  "MOCK_API_KEY", // the name of the env var holding the key
			"compat":  map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false},
			"models": []any{map[string]any{
				"id": "mock-model", "name": "Mock Model", "reasoning": false, "input": []string{"text", "image"}, // as real models: else Pi drops images
				"contextWindow": 128000, "maxTokens": 4096,
			}},
		}},
	})
	if err != nil {
		return err
	}
	err = writeJSON(filepath.Join(agentDir, "settings.json"), map[string]any{
		"defaultProvider": "mock", "defaultModel": "mock-model", "lastChangelogVersion": Pi.Version(),
	})
	if err != nil {
		return err
	}
	s.Env = append(s.Env,
		"PI_CODING_AGENT_DIR="+agentDir,
		"PI_OFFLINE=1",
		"PI_SKIP_VERSION_CHECK=1",
		"PI_TELEMETRY=0",
		"MOCK_API_KEY="+s.APIKey,
	)
	// The footer names the model once the editor is live.
	s.Ready = regexp.MustCompile(`mock-model`)
	s.Exit = Exit{Keys: []string{"C-d"}}
	s.Continue = []string{"--continue"}
	return nil
}

// kimiRecipe: KIMI_CODE_HOME with a config.toml naming a "kimi"
// (OpenAI-compatible) provider at the mock, manual permission mode (tool
// calls prompt), telemetry and auto-update off, and the project trusted
// (else the TUI starts at "Trust this folder?").
func kimiRecipe(s *Setup, modelURL string) error {
	s.APIKey = "sk-mock-kimi"
	kimiHome := filepath.Join(s.Home, ".kimi-code")
	err := writeFile(filepath.Join(kimiHome, "config.toml"), fmt.Sprintf(`default_model = "mock-model"
default_permission_mode = "manual"
telemetry = false

[providers.mock]
type = "kimi"
base_url = %q
api_key = %q

[models.mock-model]
provider = "mock"
model = "mock-model"
max_context_size = 128000
capabilities = ["image_in"]
`, modelURL+"/v1", s.APIKey))
	if err != nil {
		return err
	}
	err = writeJSON(filepath.Join(kimiHome, "workspace-trust", kimiWorkDirKey(s.Cwd)), map[string]any{
		"root": s.Cwd, "trustedAt": time.Now().UnixMilli(),
	})
	if err != nil {
		return err
	}
	s.Env = append(s.Env, "KIMI_CODE_HOME="+kimiHome, "KIMI_CODE_NO_AUTO_UPDATE=1")
	// The line under the input box shows the context use once it is live.
	s.Ready = regexp.MustCompile(`context: \d+%`)
	s.Exit = Exit{Text: "/exit"}
	s.Continue = []string{"--continue"}
	s.Dialogs = Dialogs{
		Approval: regexp.MustCompile(`Run this command\?`),
		Approve:  []string{"1"}, // Approve once
		Deny:     []string{"3"}, // Reject; the model then goes on
		// Option 1 ("Red"), then 1 (Submit) on the review page.
		Question: regexp.MustCompile(`\? Which color do you prefer\?`),
		Answer:   []string{"1", "1"},
	}
	return nil
}

// kimiWorkDirKey is Kimi 2.1.0's key for a directory (encodeWorkDirKey in
// its bundle): "wd_" + a slug of the base name + "_" + the first 12 hex
// digits of the path's SHA-256.
func kimiWorkDirKey(dir string) string {
	dir = strings.TrimRight(filepath.ToSlash(dir), "/")
	slug := strings.Trim(kimiSlugJunk.ReplaceAllString(strings.ToLower(path.Base(dir)), "-"), "-")
	if len(slug) > 40 {
		slug = strings.Trim(slug[:40], "-")
	}
	if slug == "" || slug == "." || slug == ".." {
		slug = "workspace"
	}
	sum := sha256.Sum256([]byte(dir))
	return "wd_" + slug + "_" + hex.EncodeToString(sum[:])[:12]
}

var kimiSlugJunk = regexp.MustCompile(`[^a-z0-9._-]+`)

// freePort asks the kernel for a free 127.0.0.1 port. Another process could
// take it before OpenCode binds it; on a loopback-only test box that window
// is accepted.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o600)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, string(b)+"\n")
}

// readJSON reads path into v; a missing file leaves v as it is.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
