package cursor

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"paddock/internal/history"
	"paddock/internal/session"
)

// A chat's store.db (from third-party reverse engineering, no
// real sample was available) has two tables:
//
//	meta  (key TEXT PRIMARY KEY, value TEXT)  one row "0": the chat's
//	      metadata as hex-encoded JSON {agentId, latestRootBlobId, name,
//	      mode, createdAt, lastUsedModel, subagentInfo{parentAgentId,
//	      rootParentAgentId, toolCallId, typeName}}
//	blobs (id TEXT PRIMARY KEY, data BLOB)    content-addressed by the hex
//	      SHA-256 of data
//
// The root blob (latestRootBlobId) is protobuf: repeated field 1 holds the
// 32-byte ids of the conversation's messages in order, repeated field 13
// the ids of the archives a compaction left (each naming the messages it
// summed up in its own field 1). Message blobs are JSON in the AI SDK's
// shape {role, content: string | [{type: text|reasoning|tool-call|
// tool-result, …}]}. Blobs that are not JSON (protobuf records starting
// 0x0A or 0x12) are skipped.

// maxBlobBytes bounds one message blob: a larger one (a pasted file, an
// image) is skipped rather than decoded.
const maxBlobBytes = 16 << 20

// storeMeta is row "0" of store.db's meta table.
type storeMeta struct {
	AgentID string `json:"agentId"`
	Root    string `json:"latestRootBlobId"`
	Name    string `json:"name"`
	Model   string `json:"lastUsedModel"`
	Sub     *struct {
		Parent     string `json:"parentAgentId"`
		RootParent string `json:"rootParentAgentId"`
	} `json:"subagentInfo"`
}

// parent returns the chat a subagent's chat ran under: the root of the
// chain when the store names it, else the direct parent; "" for a chat of
// the user's own.
func (m *storeMeta) parent() string {
	if m == nil || m.Sub == nil {
		return ""
	}
	if validID(m.Sub.RootParent) {
		return m.Sub.RootParent
	}
	if validID(m.Sub.Parent) {
		return m.Sub.Parent
	}
	return ""
}

// store is an open, read-only view of one chat's store.db.
type store struct {
	db      *history.SnapshotDB
	hasMeta bool
	getBlob *sql.Stmt // prepared on first use
}

func (st *store) Close() {
	if st.getBlob != nil {
		st.getBlob.Close()
	}
	st.db.Close()
}

// openStore opens a private copy of the chat's store.db and its -wal
// (history.Snapshots), never the file itself: Cursor keeps store.db in
// WAL mode for as long as a chat is open and its newest messages are in
// store.db-wal until a checkpoint, and a read-only open in place would
// still open, lock, create or (as root) chown the -wal and -shm in
// Cursor's folder. The tables it needs are checked first.
func (s *Scanner) openStore(ctx context.Context, path string) (*store, error) {
	db, err := s.snapshots.OpenDB(ctx, path, "query_only(1)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	st := &store{db: db}
	// Cursor's schema is not documented and changes between versions: ask
	// PRAGMA table_info before relying on a column.
	blobCols, err := history.Columns(ctx, st.db, "blobs")
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("cursor store %s: %w", path, err)
	}
	if !blobCols["id"] || !blobCols["data"] {
		st.Close()
		return nil, fmt.Errorf("cursor store %s: no blobs(id, data) table", path)
	}
	metaCols, err := history.Columns(ctx, st.db, "meta")
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("cursor store %s: %w", path, err)
	}
	st.hasMeta = metaCols["key"] && metaCols["value"]
	return st, nil
}

// meta reads row "0" of the meta table: hex-encoded JSON, or (should a
// build write it so) the JSON itself. nil when there is no such row or it
// cannot be decoded.
func (st *store) meta(ctx context.Context) *storeMeta {
	if !st.hasMeta {
		return nil
	}
	var raw []byte
	if err := st.db.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = '0'").Scan(&raw); err != nil {
		return nil
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] != '{' {
		dec := make([]byte, hex.DecodedLen(len(raw)))
		n, err := hex.Decode(dec, raw)
		if err != nil {
			return nil
		}
		raw = dec[:n]
	}
	var m storeMeta
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return &m
}

// blob returns the data of the blob with the given raw id; nil when absent.
func (st *store) blob(ctx context.Context, id []byte) ([]byte, error) {
	if st.getBlob == nil {
		stmt, err := st.db.PrepareContext(ctx, "SELECT data FROM blobs WHERE id = ?")
		if err != nil {
			return nil, err
		}
		st.getBlob = stmt
	}
	var data []byte
	err := st.getBlob.QueryRowContext(ctx, hex.EncodeToString(id)).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return data, err
}

// messageBlobs returns the conversation's message blobs in order: the ones
// compactions archived first, then the current ones, following the root
// blob. When the store has no usable root (an older or unexpected layout),
// every JSON blob is taken in insertion (rowid) order instead.
func (st *store) messageBlobs(ctx context.Context, m *storeMeta) ([][]byte, error) {
	if m != nil {
		if rootID, err := hex.DecodeString(strings.TrimSpace(m.Root)); err == nil && len(rootID) > 0 {
			root, err := st.blob(ctx, rootID)
			if err != nil {
				return nil, err
			}
			var ids [][]byte
			for _, a := range protoBytes(root, 13) {
				archive, err := st.blob(ctx, a)
				if err != nil {
					return nil, err
				}
				ids = append(ids, protoBytes(archive, 1)...)
			}
			ids = append(ids, protoBytes(root, 1)...)
			if len(ids) > 0 {
				out := make([][]byte, 0, len(ids))
				for _, id := range ids {
					if err := ctx.Err(); err != nil {
						return nil, err
					}
					data, err := st.blob(ctx, id)
					if err != nil {
						return nil, err
					}
					if data != nil {
						out = append(out, data)
					}
				}
				return out, nil
			}
		}
	}
	rows, err := st.db.QueryContext(ctx, "SELECT data FROM blobs ORDER BY rowid")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out [][]byte
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, err
		}
		if isJSONBlob(data) {
			out = append(out, data)
		}
	}
	return out, rows.Err()
}

// protoBytes returns the length-delimited values of field num in a
// protobuf message, read without its schema. Reading stops at the first
// malformed field: what was read before it is kept.
func protoBytes(b []byte, num uint64) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return out
		}
		b = b[n:]
		switch key & 7 {
		case 0: // varint
			_, n := binary.Uvarint(b)
			if n <= 0 {
				return out
			}
			b = b[n:]
		case 1: // 64-bit
			if len(b) < 8 {
				return out
			}
			b = b[8:]
		case 2: // length-delimited
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return out
			}
			if key>>3 == num {
				out = append(out, b[n:n+int(l)])
			}
			b = b[n+int(l):]
		case 5: // 32-bit
			if len(b) < 4 {
				return out
			}
			b = b[4:]
		default:
			return out
		}
	}
	return out
}

// isJSONBlob reports a blob that holds JSON (a message) rather than a
// binary protobuf record.
func isJSONBlob(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '{'
}

// aiMessage is a message blob: the AI SDK's message shape.
type aiMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type aiPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// textParts returns the text parts of a message's content: a string is one
// text part; reasoning, tool calls, tool results, images and files are
// never text.
func textParts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []aiPart
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []string
	for _, p := range parts {
		if p.Type == "text" && p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return out
}

// blobMessage turns one message blob into a conversation message: a user
// turn's typed text, or an assistant turn's readable text. System and tool
// messages, context-only user turns, thinking and tool calls give none.
func blobMessage(data []byte) (session.Message, bool) {
	if len(data) > maxBlobBytes || !isJSONBlob(data) {
		return session.Message{}, false
	}
	var m aiMessage
	if json.Unmarshal(data, &m) != nil {
		return session.Message{}, false
	}
	parts := textParts(m.Content)
	switch m.Role {
	case "user":
		if text := typedText(strings.Join(parts, "\n")); text != "" {
			return session.Message{Role: session.RoleUser, Text: text}, true
		}
	case "assistant":
		if text := clean(strings.Join(parts, "\n\n")); text != "" {
			return session.Message{Role: session.RoleAssistant, Text: text}, true
		}
	}
	return session.Message{}, false
}

// storeConversation reads a chat's conversation from its store.db.
func (s *Scanner) storeConversation(ctx context.Context, path string) ([]session.Message, error) {
	st, err := s.openStore(ctx, path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	blobs, err := st.messageBlobs(ctx, st.meta(ctx))
	if err != nil {
		return nil, fmt.Errorf("cursor store %s: %w", path, err)
	}
	var out []session.Message
	for _, b := range blobs {
		if msg, ok := blobMessage(b); ok {
			out = append(out, msg)
		}
	}
	return out, nil
}

// storeParent reads, from a chat's store.db, the chat it is a subagent of
// ("" when it is none, or the store cannot say).
func (s *Scanner) storeParent(ctx context.Context, path string) (string, error) {
	st, err := s.openStore(ctx, path)
	if err != nil {
		return "", err
	}
	defer st.Close()
	return st.meta(ctx).parent(), nil
}
