// Package export writes a session's record as a file a person or another
// tool reads: Markdown (the conversation only, as "### User" and
// "### Assistant"), JSON, JSON Lines or plain text; with tools, the
// model's thinking, its tool calls and their results too, each result
// after its call.
package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"paddock/internal/session"
)

// Format is an export format.
type Format string

// The formats.
const (
	Markdown Format = "markdown"
	JSON     Format = "json"
	JSONL    Format = "jsonl"
	Text     Format = "text"
)

// Formats are every format, the default first.
func Formats() []Format { return []Format{Markdown, JSON, JSONL, Text} }

// ParseFormat reads a format's name ("" and "md" are Markdown, "txt"
// Text).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "markdown", "md":
		return Markdown, nil
	case "json":
		return JSON, nil
	case "jsonl", "ndjson":
		return JSONL, nil
	case "text", "txt":
		return Text, nil
	}
	return "", fmt.Errorf("export: no format %q (markdown, json, jsonl, text)", s)
}

// Ext is the format's file extension, with its dot.
func (f Format) Ext() string {
	switch f {
	case JSON:
		return ".json"
	case JSONL:
		return ".jsonl"
	case Text:
		return ".txt"
	}
	return ".md"
}

// ContentType is the format's media type.
func (f Format) ContentType() string {
	switch f {
	case JSON:
		return "application/json"
	case JSONL:
		return "application/jsonl"
	case Text:
		return "text/plain; charset=utf-8"
	}
	return "text/markdown; charset=utf-8"
}

// Session is what an export says of the session itself (JSON only: the
// Markdown and text carry the conversation alone).
type Session struct {
	Runtime string    `json:"runtime"`
	ID      string    `json:"id"`
	Title   string    `json:"title,omitempty"`
	Cwd     string    `json:"cwd,omitempty"`
	Model   string    `json:"model,omitempty"`
	Created time.Time `json:"created,omitzero"`
	Updated time.Time `json:"updated,omitzero"`
}

// Record reads a session's record, oldest first, handing each event to
// fn and stopping at fn's first error, which it returns. An export may
// read it more than once (Plan, then Write), each time from the history:
// the record is never held whole, so an export's memory does not grow
// with the session.
type Record func(fn func(session.Event) error) error

// FromEvents is the Record of events already read.
func FromEvents(evs []session.Event) Record {
	return func(fn func(session.Event) error) error {
		for _, e := range evs {
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	}
}

// Export is one export of a record, planned by reading it once: how many
// messages it holds and, with tools, which calls have results to put
// after them and how many.
type Export struct {
	read     Record
	tools    bool
	messages int
	// results counts, by call id, the results of each call the record
	// holds (nil without tools): those results are written after it.
	results map[string]int
}

// Plan reads r once for what an export of it must know before it writes
// (only ids and counts are kept).
func Plan(r Record, tools bool) (*Export, error) {
	x := &Export{read: r, tools: tools}
	calls := map[string]bool{}
	results := map[string]int{}
	err := r(func(e session.Event) error {
		switch {
		case e.Kind == session.EventMessage:
			x.messages++
		case !tools:
		case e.Kind == session.EventToolCall && e.ToolID != "":
			calls[e.ToolID] = true
		case isResult(e):
			results[e.ToolID]++
		}
		return nil
	})
	if tools {
		x.results = make(map[string]int, len(calls))
		for id := range calls {
			x.results[id] = results[id]
		}
	}
	return x, err
}

// Messages is how many messages the export holds.
func (x *Export) Messages() int { return x.messages }

// Write reads the record again and writes it to w in f: only its
// messages, or with tools every event, results right after their calls.
func (x *Export) Write(w io.Writer, f Format, s Session) error {
	ew, err := newWriter(w, f, s, x.tools)
	if err != nil {
		return err
	}
	o := newOrderer(x.tools, x.results, ew.event)
	if err := x.read(o.add); err != nil {
		return err
	}
	if err := o.end(); err != nil {
		return err
	}
	return ew.end()
}

// Write writes the record r of s to w in f, as Export.Write does, and
// returns how many messages it wrote. Without tools the record is read
// once; with them twice (Plan).
func Write(w io.Writer, f Format, s Session, r Record, tools bool) (int, error) {
	if tools {
		x, err := Plan(r, true)
		if err != nil {
			return 0, err
		}
		return x.messages, x.Write(w, f, s)
	}
	x := &Export{tools: false}
	x.read = func(fn func(session.Event) error) error {
		return r(func(e session.Event) error {
			if e.Kind == session.EventMessage {
				x.messages++
			}
			return fn(e)
		})
	}
	err := x.Write(w, f, s)
	return x.messages, err
}

// isResult says whether e is a tool's result (or an image a tool
// returned) that names its call.
func isResult(e session.Event) bool {
	return (e.Kind == session.EventToolResult || e.Kind == session.EventImage && e.Role == "") && e.ToolID != ""
}

// maxHeld bounds what an orderer holds back: results read before their
// call, and events read after a call whose results have not all come. A
// record that would need more (a result megabytes after its call) has
// the call's remaining results written where they are.
const maxHeld = 16 << 20

// orderer passes events on in export order: only the messages without
// tools; with tools every event, each call's results (Plan's count)
// right after it — some agents write a result before the call it
// answers, others interleave calls and results. A result whose call is
// not in the record stays where it is; a call written twice gets its
// results once, after the first.
type orderer struct {
	tools bool
	left  map[string]int // by call id, its results not yet placed
	emit  func(session.Event) error

	placed map[string]bool            // calls written (their slot made)
	held   map[string][]session.Event // results read before their call
	// heldOrder is the ids of held, in the order their first result came.
	heldOrder []string
	open      map[string]*slot // calls written whose results are still coming
	queue     []queued         // what waits behind the first open call
	size      int              // bytes held and queued
	max       int              // the most it holds: maxHeld
}

func newOrderer(tools bool, results map[string]int, emit func(session.Event) error) *orderer {
	o := &orderer{tools: tools, emit: emit, max: maxHeld, placed: map[string]bool{}, held: map[string][]session.Event{}, open: map[string]*slot{}}
	if tools {
		o.left = maps.Clone(results)
	}
	return o
}

// slot is where a call's results go: right after the call.
type slot struct {
	results []session.Event
	closed  bool // complete, or given up on
}

// queued is an event waiting to be written, or a call's slot.
type queued struct {
	ev   session.Event
	slot *slot
}

func eventSize(e session.Event) int { return 64 + len(e.Text) + len(e.Input) + len(e.Data) }

// add takes the record's next event.
func (o *orderer) add(e session.Event) error {
	if !o.tools {
		if e.Kind != session.EventMessage {
			return nil
		}
		return o.emit(e)
	}
	id := e.ToolID
	_, paired := o.left[id]
	switch {
	case id == "" || !paired:
		return o.put(queued{ev: e})
	case isResult(e):
		switch sl := o.open[id]; {
		case sl != nil:
			o.left[id]--
			sl.results = append(sl.results, e)
			o.size += eventSize(e)
			if o.left[id] <= 0 {
				sl.closed = true
				delete(o.open, id)
			}
			return o.flush()
		case o.placed[id] || o.left[id] <= 0:
			return o.put(queued{ev: e}) // its call is past: it stays where it is
		}
		o.left[id]--
		if _, ok := o.held[id]; !ok {
			o.heldOrder = append(o.heldOrder, id)
		}
		o.held[id] = append(o.held[id], e)
		o.size += eventSize(e)
		return o.trim()
	case e.Kind == session.EventToolCall && !o.placed[id]:
		o.placed[id] = true
		sl := &slot{results: o.held[id], closed: o.left[id] <= 0}
		delete(o.held, id)
		if !sl.closed {
			o.open[id] = sl
		}
		if err := o.put(queued{ev: e}); err != nil {
			return err
		}
		return o.put(queued{slot: sl})
	}
	return o.put(queued{ev: e})
}

// put queues q and writes what no open call holds back.
func (o *orderer) put(q queued) error {
	if len(o.queue) == 0 && q.slot == nil {
		return o.emit(q.ev)
	}
	o.queue = append(o.queue, q)
	if q.slot == nil {
		o.size += eventSize(q.ev)
	}
	return o.flush()
}

// flush writes the queue up to its first open slot, then trims.
func (o *orderer) flush() error {
	if err := o.drain(); err != nil {
		return err
	}
	return o.trim()
}

// drain writes the queue up to its first open slot.
func (o *orderer) drain() error {
	i := 0
	for ; i < len(o.queue); i++ {
		q := o.queue[i]
		if q.slot == nil {
			o.size -= eventSize(q.ev)
			if err := o.emit(q.ev); err != nil {
				return err
			}
			continue
		}
		if !q.slot.closed {
			break
		}
		for _, r := range q.slot.results {
			o.size -= eventSize(r)
			if err := o.emit(r); err != nil {
				return err
			}
		}
	}
	o.queue = append(o.queue[:0], o.queue[i:]...)
	return nil
}

// trim gives up on pairing while more than maxHeld is held: the first
// open call's results so far are written after it and its later ones
// where they are; then results held before their call are written now,
// and the call, when it comes, alone.
func (o *orderer) trim() error {
	for o.size > o.max {
		sl := firstOpen(o.queue)
		if sl == nil {
			break
		}
		sl.closed = true
		for id, x := range o.open {
			if x == sl {
				delete(o.open, id)
				o.left[id] = 0
			}
		}
		if err := o.drain(); err != nil {
			return err
		}
	}
	for len(o.heldOrder) > 0 && o.size > o.max {
		id := o.heldOrder[0]
		o.heldOrder = o.heldOrder[1:]
		rs, ok := o.held[id]
		if !ok {
			continue // its call came
		}
		delete(o.held, id)
		o.left[id] = 0
		for _, r := range rs {
			o.size -= eventSize(r)
			if err := o.put(queued{ev: r}); err != nil {
				return err
			}
		}
	}
	return nil
}

// firstOpen is the first slot of q still open.
func firstOpen(q []queued) *slot {
	for _, x := range q {
		if x.slot != nil && !x.slot.closed {
			return x.slot
		}
	}
	return nil
}

// end writes what is left: open calls' results as they are, then
// results whose call never came (the record changed between reads).
func (o *orderer) end() error {
	for _, q := range o.queue {
		if q.slot != nil {
			q.slot.closed = true
		}
	}
	if err := o.drain(); err != nil {
		return err
	}
	for _, id := range o.heldOrder {
		for _, r := range o.held[id] {
			if err := o.emit(r); err != nil {
				return err
			}
		}
		delete(o.held, id)
	}
	return nil
}

func roleTitle(role string) string {
	if role == session.RoleAssistant {
		return "Assistant"
	}
	return "User"
}

// fence is a Markdown code fence longer than any run of backticks in s.
func fence(s string) string {
	n, run := 3, 0
	for _, r := range s {
		if r == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", n)
}

// eventWriter writes an export one event at a time, in its format.
type eventWriter interface {
	event(e session.Event) error
	end() error
}

func newWriter(w io.Writer, f Format, s Session, tools bool) (eventWriter, error) {
	switch f {
	case Markdown:
		return &textWriter{w: w, entry: markdownEntry}, nil
	case Text:
		return &textWriter{w: w, entry: textEntry}, nil
	case JSON:
		return newJSONWriter(w, s, tools), nil
	case JSONL:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return &jsonlWriter{enc: enc, tools: tools}, nil
	}
	return nil, fmt.Errorf("export: no format %q", f)
}

// textWriter writes Markdown or plain text, entries a blank line apart,
// in pieces of about 64 KiB.
type textWriter struct {
	w     io.Writer
	b     strings.Builder
	n     int // entries written
	entry func(b *strings.Builder, e session.Event)
}

func (t *textWriter) event(e session.Event) error {
	if t.n++; t.n > 1 {
		t.b.WriteString("\n")
	}
	t.entry(&t.b, e)
	if t.b.Len() > 64<<10 {
		_, err := io.WriteString(t.w, t.b.String())
		t.b.Reset()
		return err
	}
	return nil
}

func (t *textWriter) end() error {
	_, err := io.WriteString(t.w, t.b.String())
	return err
}

func markdownEntry(b *strings.Builder, e session.Event) {
	switch e.Kind {
	case session.EventMessage:
		fmt.Fprintf(b, "### %s\n\n%s\n", roleTitle(e.Role), strings.TrimSpace(e.Text))
	case session.EventThinking:
		b.WriteString("#### Thinking\n\n")
		for _, l := range strings.Split(strings.TrimSpace(e.Text), "\n") {
			b.WriteString(strings.TrimRight("> "+l, " ") + "\n")
		}
	case session.EventToolCall:
		f := fence(e.Input)
		fmt.Fprintf(b, "#### Tool call: %s\n\n%sjson\n%s\n%s\n", e.Tool, f, e.Input, f)
	case session.EventToolResult:
		head := "Tool result"
		if e.IsError {
			head = "Tool result (error)"
		}
		f := fence(e.Text)
		fmt.Fprintf(b, "#### %s\n\n%s\n%s\n%s\n", head, f, e.Text, f)
	case session.EventImage:
		fmt.Fprintf(b, "#### Image\n\n%s, %d bytes\n", e.MediaType, e.Size)
	}
}

func textEntry(b *strings.Builder, e session.Event) {
	switch e.Kind {
	case session.EventMessage:
		fmt.Fprintf(b, "%s:\n%s\n", roleTitle(e.Role), strings.TrimSpace(e.Text))
	case session.EventThinking:
		fmt.Fprintf(b, "Thinking:\n%s\n", strings.TrimSpace(e.Text))
	case session.EventToolCall:
		fmt.Fprintf(b, "Tool call %s:\n%s\n", e.Tool, e.Input)
	case session.EventToolResult:
		if e.IsError {
			fmt.Fprintf(b, "Tool result (error):\n%s\n", e.Text)
		} else {
			fmt.Fprintf(b, "Tool result:\n%s\n", e.Text)
		}
	case session.EventImage:
		fmt.Fprintf(b, "Image: %s, %d bytes\n", e.MediaType, e.Size)
	}
}

// entry is one event as JSON; a message has only role, text and time.
type entry struct {
	Kind      string     `json:"kind,omitempty"`
	Role      string     `json:"role,omitempty"`
	Text      string     `json:"text,omitempty"`
	Tool      string     `json:"tool,omitempty"`
	ToolID    string     `json:"tool_id,omitempty"`
	Input     string     `json:"input,omitempty"`
	IsError   bool       `json:"is_error,omitempty"`
	MediaType string     `json:"media_type,omitempty"`
	Size      int        `json:"size,omitempty"`
	Time      *time.Time `json:"time,omitempty"`
}

func entryOf(e session.Event, tools bool) entry {
	j := entry{Role: e.Role, Text: e.Text, Tool: e.Tool, ToolID: e.ToolID, Input: e.Input, IsError: e.IsError, MediaType: e.MediaType, Size: e.Size}
	if tools {
		j.Kind = e.Kind
	}
	if !e.Time.IsZero() {
		t := e.Time.UTC()
		j.Time = &t
	}
	return j
}

// jsonWriter writes {"messages" (or "events"): [...], "session": {...}}
// indented, one entry at a time: a long session is never held, as the
// record or as its encoding.
type jsonWriter struct {
	bw    *bufio.Writer
	buf   bytes.Buffer
	enc   *json.Encoder
	s     Session
	tools bool
	n     int
}

func newJSONWriter(w io.Writer, s Session, tools bool) *jsonWriter {
	j := &jsonWriter{bw: bufio.NewWriter(w), s: s, tools: tools}
	j.enc = json.NewEncoder(&j.buf)
	j.enc.SetEscapeHTML(false)
	j.enc.SetIndent("    ", "  ")
	key := "messages"
	if tools {
		key = "events"
	}
	j.bw.WriteString("{\n  \"" + key + "\": [")
	return j
}

func (j *jsonWriter) event(e session.Event) error {
	j.buf.Reset()
	if err := j.enc.Encode(entryOf(e, j.tools)); err != nil {
		return err
	}
	if j.n++; j.n > 1 {
		j.bw.WriteByte(',')
	}
	j.bw.WriteString("\n    ")
	_, err := j.bw.Write(bytes.TrimSuffix(j.buf.Bytes(), []byte("\n")))
	return err
}

func (j *jsonWriter) end() error {
	if j.n > 0 {
		j.bw.WriteString("\n  ")
	}
	j.bw.WriteString("],\n  \"session\": ")
	j.buf.Reset()
	j.enc.SetIndent("  ", "  ")
	if err := j.enc.Encode(j.s); err != nil {
		return err
	}
	j.bw.Write(bytes.TrimSuffix(j.buf.Bytes(), []byte("\n")))
	j.bw.WriteString("\n}\n")
	return j.bw.Flush()
}

// jsonlWriter writes one entry a line.
type jsonlWriter struct {
	enc   *json.Encoder
	tools bool
}

func (j *jsonlWriter) event(e session.Event) error { return j.enc.Encode(entryOf(e, j.tools)) }
func (j *jsonlWriter) end() error                  { return nil }

// FileName is a file name for s's export in f: its title's words (or its
// id), and the format's extension.
func FileName(s Session, f Format) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, s.Title)
	name = strings.Trim(strings.Join(strings.FieldsFunc(name, func(r rune) bool { return r == '-' }), "-"), "-")
	if len(name) > 48 {
		name = strings.TrimRight(name[:48], "-")
	}
	id := s.ID
	if len(id) > 8 {
		id = id[:8]
	}
	if name == "" {
		return s.Runtime + "-" + id + f.Ext()
	}
	return name + "-" + id + f.Ext()
}

// WriteFile writes an export to path beside it first, then renamed: an
// export cut short never stands in for the file.
func WriteFile(path string, f Format, meta Session, r Record, tools bool) (int, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	n, err := Write(tmp, f, meta, r, tools)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return n, err
}

// Forbidden says whether path is inside one of dirs (the agents' history
// directories, paddock's data) or the hidden folder that holds one
// (~/.claude for ~/.claude/projects), and which.
func Forbidden(path string, dirs []string) (string, bool) {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		d, _ = filepath.Abs(d)
		for _, root := range []string{d, filepath.Dir(d)} {
			if root != d && !strings.HasPrefix(filepath.Base(root), ".") {
				continue // only a hidden folder is the agent's own
			}
			if rel, err := filepath.Rel(root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return root, true
			}
		}
	}
	return "", false
}
