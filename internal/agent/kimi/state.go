package kimi

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"paddock/internal/session"
)

// maxStateBytes bounds what is read of a state.json; real ones are under
// 2 KB (a todo list can make a legacy one longer).
const maxStateBytes = 4 << 20

// readJSONObject reads a small JSON object file. A missing file is
// (nil, nil); a file that is not a JSON object is an error.
func readJSONObject(path string) (map[string]json.RawMessage, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateBytes))
	if err != nil {
		return nil, err
	}
	m := object(json.RawMessage(data))
	if m == nil {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

// sessionState is what kimi-code's state.json (version 2; older files use
// workDir, ISO times and isCustomTitle) tells about a session.
type sessionState struct {
	cwd              string
	title, titleKind string
	lastPrompt       string
	created, updated time.Time
	archived         bool
}

// parseState normalises state.json the way kimi-code's normalizeSessionMeta
// does.
func parseState(m map[string]json.RawMessage) sessionState {
	st := sessionState{
		cwd:        jsonStr(m["cwd"]),
		lastPrompt: jsonStr(m["lastPrompt"]),
		created:    jsonTime(m["createdAt"]),
		updated:    jsonTime(m["updatedAt"]),
		archived:   jsonBool(m["archived"]),
	}
	if st.cwd == "" {
		st.cwd = jsonStr(m["workDir"])
	}
	title, hasTitle := m["title"]
	st.title = jsonStr(title)
	kind := jsonStr(m["titleKind"])
	switch {
	case hasTitle && jsonStr(title) != "" && jsonBool(m["isCustomTitle"]):
		st.titleKind = "custom"
	case kind == "replaceable" || kind == "generated" || kind == "custom":
		st.titleKind = kind
	case jsonStr(m["customTitle"]) != "" && st.title == "":
		st.title, st.titleKind = jsonStr(m["customTitle"]), "custom"
	default:
		st.titleKind = "replaceable"
	}
	return st
}

// untitled mirrors kimi-code's isUntitled: such a title is a placeholder.
func untitled(t string) bool {
	return strings.TrimSpace(t) == "" || t == "New Session"
}

// titleSource maps kimi-code's titleKind to session.Info.TitleSource. A
// "replaceable" title is the first prompt kimi copied into state.json.
func titleSource(kind string) string {
	switch kind {
	case "custom":
		return session.TitleCustom
	case "generated":
		return session.TitleAI
	}
	return session.TitlePrompt
}

// legacyState is what the Python kimi-cli's state.json (and the
// metadata.json it replaced) tells about a session.
type legacyState struct {
	customTitle string
	archived    bool
}

func parseLegacyState(state, meta map[string]json.RawMessage) legacyState {
	ls := legacyState{
		customTitle: jsonStr(state["custom_title"]),
		archived:    jsonBool(state["archived"]) || jsonBool(meta["archived"]),
	}
	if t := jsonStr(meta["title"]); ls.customTitle == "" && t != "" && t != "Untitled" {
		ls.customTitle = t
	}
	return ls
}
