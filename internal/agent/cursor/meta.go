package cursor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"paddock/internal/history"
)

// Bounds on what listing reads of a chat's small JSON files. Real meta.json
// files are a few hundred bytes; a prompt history holds what was typed.
const (
	maxMetaBytes    = 1 << 20
	maxHistoryBytes = 8 << 20
)

// summary is what listing knows of one chat, from its meta.json and
// prompt_history.json only: store.db is never opened to list.
type summary struct {
	title       string
	cwd         string
	created     time.Time
	lastEvent   time.Time // meta.json updatedAtMs, or the newest prompt time
	subagent    bool      // meta.json isSubagent === true
	empty       bool      // meta.json hasConversation === false: an empty shell
	hasMeta     bool
	firstPrompt string
	lastPrompt  string
	prompts     int
	// problem is the chat's Error: why part or all of its files could
	// not be read ("" when they were read whole).
	problem string
	// retry: a file could not be opened, which a permission put right
	// changes without changing any stat; such a summary is not cached.
	retry bool
}

// addProblem adds one more reason to the summary's problem.
func (s *summary) addProblem(p string) {
	if p != "" {
		s.problem = strings.TrimPrefix(s.problem+"; "+p, "; ")
	}
}

// fileProblem says why the chat file name could not be read; open is
// set when it could not even be opened. JSON of another shape than
// paddock expects is no problem to show: the files' schemas come from
// third parties and may change.
func fileProblem(name string, err error) (p string, open bool) {
	var syntax *json.SyntaxError
	var path *fs.PathError
	switch {
	case errors.As(err, &syntax):
		return "its " + name + " is not valid JSON", false
	case errors.As(err, &path):
		return "its " + name + " cannot be read: " + history.Reason(err), true
	}
	return "", false
}

// metaFile is the part of a chat's meta.json paddock uses, as third-party
// readers document it: {schemaVersion, createdAtMs,
// updatedAtMs, hasConversation, isSubagent, title, cwd}. It is decoded from
// a generic map so that a null or wrongly typed field is ignored instead of
// failing the file (values may be JSON null).
func readMetaFile(path string, into *summary) error {
	raw, err := readJSONFile(path, maxMetaBytes)
	if err != nil {
		return err
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("cursor meta.json: not an object")
	}
	into.hasMeta = true
	if t := history.ClipLine(clean(str(m["title"])), maxTitleRunes); t != defaultChatName {
		into.title = t
	}
	if cwd := clean(str(m["cwd"])); absPath(cwd) {
		into.cwd = cwd
	}
	into.created = msTime(m["createdAtMs"])
	into.lastEvent = msTime(m["updatedAtMs"])
	into.subagent = m["isSubagent"] == true
	into.empty = m["hasConversation"] == false
	return nil
}

// readPromptHistory reads a chat's prompt_history.json: what the person
// typed, oldest first. Its exact schema is unverified (no sample exists),
// so the shapes seen in similar files are all accepted:
// an array of strings, or of objects carrying the text under "text",
// "prompt", "query", "content" or "display" (and optionally a time), or an
// object holding such an array under "prompts", "history", "entries" or
// "items". Anything else contributes no prompts.
func readPromptHistory(path string, into *summary) error {
	raw, err := readJSONFile(path, maxHistoryBytes)
	if err != nil {
		return err
	}
	list, ok := raw.([]any)
	if obj, isObj := raw.(map[string]any); isObj {
		for _, k := range []string{"prompts", "history", "entries", "items"} {
			if list, ok = obj[k].([]any); ok {
				break
			}
		}
	}
	if !ok {
		return fmt.Errorf("cursor prompt_history.json: no list of prompts")
	}
	for _, e := range list {
		text, at := promptEntry(e)
		if text = typedText(text); text == "" {
			continue
		}
		if into.prompts == 0 {
			into.firstPrompt = history.ClipLine(text, maxPromptRunes)
		}
		into.lastPrompt = history.ClipLine(text, maxPromptRunes)
		into.prompts++
		if at.After(into.lastEvent) {
			into.lastEvent = at
		}
	}
	return nil
}

// promptEntry reads one prompt history entry: its text and, when it says,
// its time.
func promptEntry(e any) (string, time.Time) {
	switch v := e.(type) {
	case string:
		return v, time.Time{}
	case map[string]any:
		text := ""
		for _, k := range []string{"text", "prompt", "query", "content", "display"} {
			if text = str(v[k]); text != "" {
				break
			}
		}
		var at time.Time
		for _, k := range []string{"timestamp", "createdAtMs", "createdAt", "time", "ts"} {
			if at = msTime(v[k]); !at.IsZero() {
				break
			}
		}
		return text, at
	}
	return "", time.Time{}
}

// readJSONFile decodes a whole JSON file of at most max bytes.
func readJSONFile(path string, max int64) (any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, max)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, errors.Join(errors.New("malformed JSON"), err)
	}
	return v, nil
}

// str returns v when it is a string, "" for null or any other type.
func str(v any) string {
	s, _ := v.(string)
	return s
}

// msTime reads a time given in milliseconds since the epoch, as a number
// or a numeric string; an ISO 8601 string is accepted too. Values that
// cannot be a chat's time (zero, negative, beyond year 9999, NaN) are zero.
func msTime(v any) time.Time {
	var ms float64
	switch x := v.(type) {
	case float64:
		ms = x
	case string:
		x = strings.TrimSpace(x)
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return t
		}
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return time.Time{}
		}
		ms = f
	default:
		return time.Time{}
	}
	const maxMs = 253402300799999 // 9999-12-31T23:59:59.999Z
	if math.IsNaN(ms) || ms <= 0 || ms > maxMs {
		return time.Time{}
	}
	// Seconds where milliseconds were expected (before 1973 as ms).
	if ms < 1e11 {
		ms *= 1000
	}
	return time.UnixMilli(int64(ms))
}
