package decisions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"paddock/internal/session"
	"paddock/internal/store"
)

// save persists a newly opened item; Open refuses one it cannot save.
func (b *Broker) save(ctx context.Context, it Item) error {
	if b.persist == nil {
		return nil
	}
	ctx, cancel := writeCtx(ctx, writeTimeout)
	defer cancel()
	row, err := toRow(it)
	if err == nil {
		err = b.persist.SavePendingItem(ctx, row)
	}
	if err != nil {
		b.logger.Error("item not opened: it could not be saved", "item", it.ID, "err", err)
	}
	return err
}

// recordDecision writes a decision's resolution and its audit entry, in
// one transaction, before anyone learns of it: within MaxRecord, or not
// at all.
func (b *Broker) recordDecision(ctx context.Context, it Item) error {
	if b.persist == nil {
		return nil
	}
	ctx, cancel := writeCtx(ctx, MaxRecord)
	defer cancel()
	return b.settle(ctx, it)
}

// record persists a release (desk, expired, withdrawn) and audits it. The
// hook already has its outcome, no decision, which is what the agent's
// own prompt takes whatever the store says; a failure here is logged, and
// the next start marks an item the store still has pending expired.
func (b *Broker) record(ctx context.Context, it Item) {
	if b.persist == nil {
		return
	}
	ctx, cancel := writeCtx(ctx, writeTimeout)
	defer cancel()
	if err := b.settle(ctx, it); err != nil {
		b.logger.Error("save resolution", "item", it.ID, "resolution", it.Resolution, "err", err)
	}
}

// settle stores a resolved item with its audit entry.
func (b *Broker) settle(ctx context.Context, it Item) error {
	row, err := toRow(it)
	if err != nil {
		return err
	}
	changed, err := b.persist.SettlePendingItem(ctx, row, store.AuditEntry{
		At: it.ResolvedAt, Actor: it.ResolvedBy, Action: auditAction(it), Detail: auditDetail(it)})
	if err == nil && !changed {
		b.logger.Warn("store had the item resolved already; kept this run's resolution in memory", "item", it.ID, "resolution", it.Resolution)
	}
	return err
}

// writeCtx detaches a store write from its caller's cancellation (a phone
// closing its request must not lose the record of its decision) and bounds
// it instead.
func writeCtx(ctx context.Context, within time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), within)
}

// auditAction is "<kind>.<resolution>": "approval.allowed",
// "question.answered", "plan.expired"…
func auditAction(it Item) string { return string(it.Kind) + "." + string(it.Resolution) }

// auditDetail names the item, never its input or answers.
func auditDetail(it Item) string {
	return fmt.Sprintf("kind=%s session=%s tool=%s item=%s", it.Kind, it.Key, it.Tool, it.ID)
}

// record is the stored encoding of an Item: its own type, so that the
// exported struct can change without breaking databases.
type record struct {
	ID          string           `json:"id"`
	Kind        Kind             `json:"kind"`
	Runtime     string           `json:"runtime"`
	SessionID   string           `json:"session_id"`
	Tool        string           `json:"tool,omitempty"`
	ToolUseID   string           `json:"tool_use_id,omitempty"`
	Input       json.RawMessage  `json:"input,omitempty"`
	Suggestions json.RawMessage  `json:"suggestions,omitempty"`
	Questions   []questionRecord `json:"questions,omitempty"`
	Reason      string           `json:"reason,omitempty"`
	Cwd         string           `json:"cwd,omitempty"`
	Can         []string         `json:"can"`
	FreeText    bool             `json:"free_text,omitempty"`
	Created     time.Time        `json:"created"`
	Expires     time.Time        `json:"expires,omitzero"`

	Resolution Resolution        `json:"resolution,omitempty"`
	ResolvedBy string            `json:"resolved_by,omitempty"`
	ResolvedAt time.Time         `json:"resolved_at,omitzero"`
	Message    string            `json:"message,omitempty"`
	Answers    map[string]string `json:"answers,omitempty"`
}

type questionRecord struct {
	Question    string         `json:"question"`
	Header      string         `json:"header,omitempty"`
	Options     []optionRecord `json:"options,omitempty"`
	MultiSelect bool           `json:"multi_select,omitempty"`
}

type optionRecord struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

func encode(it Item) ([]byte, error) {
	r := record{
		ID: it.ID, Kind: it.Kind, Runtime: it.Key.Runtime, SessionID: it.Key.ID,
		Tool: it.Tool, ToolUseID: it.ToolUseID, Input: it.Input, Suggestions: it.Suggestions,
		Reason: it.Reason, Cwd: it.Cwd, Can: it.Can, FreeText: it.FreeText,
		Created: it.Created, Expires: it.Expires,
		Resolution: it.Resolution, ResolvedBy: it.ResolvedBy, ResolvedAt: it.ResolvedAt,
		Message: it.Message, Answers: it.Answers,
	}
	for _, q := range it.Questions {
		qr := questionRecord{Question: q.Question, Header: q.Header, MultiSelect: q.MultiSelect}
		for _, o := range q.Options {
			qr.Options = append(qr.Options, optionRecord(o))
		}
		r.Questions = append(r.Questions, qr)
	}
	// No HTML escaping: the input is kept as the agent sent it.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("pending: encode item %s: %w", it.ID, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func decode(data []byte) (Item, error) {
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return Item{}, err
	}
	it := Item{
		ID: r.ID, Kind: r.Kind, Key: session.Key{Runtime: r.Runtime, ID: r.SessionID},
		Tool: r.Tool, ToolUseID: r.ToolUseID, Input: r.Input, Suggestions: r.Suggestions,
		Reason: r.Reason, Cwd: r.Cwd, Can: r.Can, FreeText: r.FreeText,
		Created: r.Created, Expires: r.Expires,
		Resolution: r.Resolution, ResolvedBy: r.ResolvedBy, ResolvedAt: r.ResolvedAt,
		Message: r.Message, Answers: r.Answers,
	}
	for _, q := range r.Questions {
		qq := Question{Question: q.Question, Header: q.Header, MultiSelect: q.MultiSelect}
		for _, o := range q.Options {
			qq.Options = append(qq.Options, Option(o))
		}
		it.Questions = append(it.Questions, qq)
	}
	return it, nil
}

func toRow(it Item) (store.PendingItem, error) {
	data, err := encode(it)
	if err != nil {
		return store.PendingItem{}, err
	}
	return store.PendingItem{
		ID: it.ID, Runtime: it.Key.Runtime, SessionID: it.Key.ID, Kind: string(it.Kind),
		Created: it.Created, Expires: it.Expires,
		Resolution: string(it.Resolution), ResolvedBy: it.ResolvedBy, ResolvedAt: it.ResolvedAt,
		Data: data,
	}, nil
}

// fromRow decodes a stored item. The row's columns, which the store's
// exactly-once guard reads, win over the encoding.
func fromRow(r store.PendingItem) (Item, error) {
	it, err := decode(r.Data)
	if err != nil {
		return Item{}, fmt.Errorf("pending: decode item %s: %w", r.ID, err)
	}
	if it.ID != r.ID {
		return Item{}, fmt.Errorf("pending: item %s: its encoding names %s", r.ID, it.ID)
	}
	if res := Resolution(r.Resolution); res != it.Resolution {
		it.Resolution, it.ResolvedBy, it.ResolvedAt = res, r.ResolvedBy, r.ResolvedAt
	}
	return it, nil
}
