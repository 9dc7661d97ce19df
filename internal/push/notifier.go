package push

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"

	"paddock/internal/decisions"
	"paddock/internal/history"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
	"paddock/internal/store"
)

// Store keeps the subscriptions (internal/store).
type Store interface {
	SavePushSubscription(ctx context.Context, p store.PushSubscription) error
	PushSubscriptions(ctx context.Context) ([]store.PushSubscription, error)
	DeletePushSubscription(ctx context.Context, endpoint string) error
}

// Items are the approvals and questions (internal/decisions).
type Items interface {
	Subscribe() (<-chan decisions.Item, func())
	List(f decisions.Filter) []decisions.Item
}

// Cards are the sessions' live cards (internal/live): a finished turn is
// a card that entered "your turn".
type Cards interface {
	Cards() []live.Card
	Card(k session.Key) (live.Card, bool)
	Subscribe() (<-chan session.Change, func())
}

// Options configure a Notifier; Keys, Store and Items are required.
type Options struct {
	Keys  *Keys
	Store Store
	Items Items
	// Cards tell of finished turns; nil: no turn is notified.
	Cards Cards
	// Agents are the known agents' names, which preferences may choose
	// from.
	Agents []string
	// Label is an agent's display name ("Claude Code").
	Label func(runtime string) string
	// Subscriber is the VAPID "sub" claim: a contact URL or mailto.
	Subscriber string
	// ExtraHosts are push services accepted besides the browsers' own
	// (a test's fake one); empty in production.
	ExtraHosts []string
	Client     webpush.HTTPClient
	Log        *slog.Logger
	Now        func() time.Time
	// Tick is how often delayed notifications are checked (250 ms).
	Tick time.Duration
}

// Notifier sends the notifications. Run owns its loop; Subscribe,
// Unsubscribe and Test are safe from any goroutine.
type Notifier struct {
	o Options
	// subscribed is closed once Run hears the items and cards: what
	// happens from then on is notified.
	subscribed chan struct{}
}

// New makes a Notifier.
func New(o Options) (*Notifier, error) {
	if o.Keys == nil || o.Store == nil || o.Items == nil {
		return nil, fmt.Errorf("push: keys, store and items are required")
	}
	if o.Label == nil {
		o.Label = func(rt string) string { return rt }
	}
	if o.Subscriber == "" {
		o.Subscriber = "https://github.com/paddock-dev/paddock"
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Tick <= 0 {
		o.Tick = 250 * time.Millisecond
	}
	return &Notifier{o: o, subscribed: make(chan struct{})}, nil
}

// PublicKey is the VAPID public key a browser subscribes with.
func (n *Notifier) PublicKey() string { return n.o.Keys.Public }

// Capability is device's token for deciding item from a notification.
func (n *Notifier) Capability(deviceID, itemID string) string {
	return n.o.Keys.Capability(deviceID, itemID)
}

// CheckCapability reports whether token lets device decide item.
func (n *Notifier) CheckCapability(deviceID, itemID, token string) bool {
	return n.o.Keys.CheckCapability(deviceID, itemID, token)
}

// Subscribe stores device's subscription after checking it; the error
// says what is wrong with it.
func (n *Notifier) Subscribe(ctx context.Context, deviceID string, s Subscription) error {
	if err := s.Check(n.o.ExtraHosts, n.o.Agents); err != nil {
		return &BadSubscription{err.Error()}
	}
	return n.o.Store.SavePushSubscription(ctx, store.PushSubscription{Endpoint: s.Endpoint, DeviceID: deviceID,
		P256dh: s.Keys.P256dh, Auth: s.Keys.Auth, Prefs: s.Prefs.marshal(), CreatedAt: n.o.Now()})
}

// BadSubscription is a subscription or preference paddock refuses.
type BadSubscription struct{ Reason string }

func (e *BadSubscription) Error() string { return "push: " + e.Reason }

// Unsubscribe forgets one of device's endpoints.
func (n *Notifier) Unsubscribe(ctx context.Context, deviceID, endpoint string) error {
	subs, err := n.o.Store.PushSubscriptions(ctx)
	if err != nil {
		return err
	}
	for _, s := range subs {
		if s.Endpoint == endpoint && s.DeviceID == deviceID {
			return n.o.Store.DeletePushSubscription(ctx, endpoint)
		}
	}
	return nil
}

// Prefs are device's preferences (its newest subscription's), and whether
// it has any subscription.
func (n *Notifier) Prefs(ctx context.Context, deviceID string) (Prefs, bool, error) {
	subs, err := n.o.Store.PushSubscriptions(ctx)
	if err != nil {
		return Prefs{}, false, err
	}
	p, ok := DefaultPrefs(), false
	for _, s := range subs {
		if s.DeviceID == deviceID {
			p, ok = parsePrefs(s.Prefs), true
		}
	}
	return p, ok, nil
}

// Test sends a test notification to every subscription of device and
// says how many the push services took.
func (n *Notifier) Test(ctx context.Context, deviceID string) (int, error) {
	subs, err := n.o.Store.PushSubscriptions(ctx)
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, s := range subs {
		if s.DeviceID != deviceID {
			continue
		}
		if n.send(ctx, s, message{Type: "test", Tag: "paddock-test", Title: "paddock", Body: "Notifications reach this device.", URL: "/"}, "") {
			sent++
		}
	}
	return sent, nil
}

// message is a notification's payload, read by the service worker.
type message struct {
	Type    string   `json:"type"` // item, turn, close, test
	Tag     string   `json:"tag"`  // one notification per item: the item's id
	Title   string   `json:"title,omitempty"`
	Body    string   `json:"body,omitempty"`
	URL     string   `json:"url,omitempty"`
	Item    string   `json:"item,omitempty"`
	Actions []action `json:"actions,omitempty"`
	Device  string   `json:"device,omitempty"` // whose capability Cap is
	Cap     string   `json:"cap,omitempty"`
}

type action struct {
	Action string `json:"action"`
	Title  string `json:"title"`
}

// waiting is what is open — an item, or a finished turn — and the
// subscriptions told of it.
type waiting struct {
	item decisions.Item // when it is an item
	turn *live.Card     // when it is a turn: the card as it entered "your turn"
	sent map[string]store.PushSubscription
}

func newWaiting(it decisions.Item) *waiting {
	return &waiting{item: it, sent: map[string]store.PushSubscription{}}
}

// turnTag is a finished turn's notification tag: one per session, so the
// next turn's replaces it, and URL-safe for the push service's topic.
func turnTag(k session.Key) string {
	sum := sha256.Sum256([]byte(k.String()))
	return "turn-" + hex.EncodeToString(sum[:])[:27]
}

// Run sends notifications until ctx ends.
func (n *Notifier) Run(ctx context.Context) error {
	items, cancel := n.o.Items.Subscribe()
	defer cancel()
	open := map[string]*waiting{}
	for _, it := range n.o.Items.List(decisions.Filter{PendingOnly: true}) {
		open[it.ID] = newWaiting(it)
	}
	var changes <-chan session.Change
	// turnAt is when each session's current "your turn" began, as last
	// seen: a turn is notified once, and not at all when it had finished
	// before paddock started.
	turnAt := map[session.Key]time.Time{}
	if n.o.Cards != nil {
		ch, stop := n.o.Cards.Subscribe()
		defer stop()
		changes = ch
		for _, c := range n.o.Cards.Cards() {
			if c.State == hookstate.StateWaiting {
				turnAt[c.Key] = c.Since
			}
		}
	}
	close(n.subscribed)
	tick := time.NewTicker(n.o.Tick)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case it, ok := <-items:
			if !ok {
				items = nil
				continue
			}
			w := open[it.ID]
			switch {
			case it.Resolution == "" && w == nil:
				open[it.ID] = newWaiting(it)
				n.due(ctx, open)
			case it.Resolution != "" && w != nil:
				n.closeAll(ctx, w, it.ID, resolvedBody(it))
				delete(open, it.ID)
			}
		case ch, ok := <-changes:
			if !ok {
				changes = nil
				continue
			}
			keys := ch.Updated
			if ch.Full {
				keys = nil
				for _, c := range n.o.Cards.Cards() {
					keys = append(keys, c.Key)
				}
			}
			for _, k := range append(keys, ch.Removed...) {
				n.turnChanged(ctx, k, open, turnAt)
			}
			n.due(ctx, open)
		case <-tick.C:
			if len(open) > 0 {
				n.due(ctx, open)
			}
		}
	}
}

// turnChanged opens a finished turn of k, or closes the one it had when
// the user has moved on (a prompt, the session gone).
func (n *Notifier) turnChanged(ctx context.Context, k session.Key, open map[string]*waiting, turnAt map[session.Key]time.Time) {
	tag := turnTag(k)
	c, ok := n.o.Cards.Card(k)
	if ok && c.State == hookstate.StateWaiting {
		if at, seen := turnAt[k]; seen && at.Equal(c.Since) {
			return
		}
		turnAt[k] = c.Since
		if w := open[tag]; w != nil {
			n.closeAll(ctx, w, tag, "")
		}
		open[tag] = &waiting{turn: &c, sent: map[string]store.PushSubscription{}}
		return
	}
	delete(turnAt, k)
	if w := open[tag]; w != nil {
		n.closeAll(ctx, w, tag, "Answered.")
		delete(open, tag)
	}
}

// closeAll closes w's notification on every device told of it.
func (n *Notifier) closeAll(ctx context.Context, w *waiting, tag, body string) {
	rt := w.item.Key.Runtime
	if w.turn != nil {
		rt = w.turn.Key.Runtime
	}
	for _, s := range w.sent {
		n.send(ctx, s, message{Type: "close", Tag: tag, Title: n.o.Label(rt), Body: body}, "")
	}
}

// due sends each open item and turn to the subscriptions whose
// preferences want it, outside their quiet hours and once their
// escalation delay has passed.
func (n *Notifier) due(ctx context.Context, open map[string]*waiting) {
	if len(open) == 0 {
		return
	}
	subs, err := n.o.Store.PushSubscriptions(ctx)
	if err != nil {
		n.o.Log.Warn("push subscriptions unreadable", "error", err)
		return
	}
	now := n.o.Now()
	for _, w := range open {
		for _, s := range subs {
			if _, done := w.sent[s.Endpoint]; done {
				continue
			}
			p := parsePrefs(s.Prefs)
			if !w.wanted(p) || p.quiet(now) || now.Before(w.since().Add(time.Duration(p.DelaySeconds)*time.Second)) {
				continue
			}
			w.sent[s.Endpoint] = s
			if w.turn != nil {
				n.send(ctx, s, n.turnMessage(*w.turn, p), webpush.UrgencyNormal)
			} else {
				n.send(ctx, s, n.itemMessage(w.item, s.DeviceID, p), webpush.UrgencyHigh)
			}
		}
	}
}

// since is when w began waiting for the user.
func (w *waiting) since() time.Time {
	if w.turn != nil {
		return w.turn.Since
	}
	return w.item.Created
}

// wanted reports whether p wants to hear of w at all.
func (w *waiting) wanted(p Prefs) bool {
	if w.turn != nil {
		kind := p.Turns
		if w.turn.TurnFailed {
			kind = p.Errors
		}
		return kind && p.about(w.turn.Key.Runtime, session.ShortProject(w.turn.Cwd, ""))
	}
	kind := p.Questions
	if w.item.Kind == decisions.KindApproval {
		kind = p.Approvals
	}
	return kind && p.about(w.item.Key.Runtime, session.ShortProject(w.item.Cwd, ""))
}

// turnMessage says which agent finished (or stopped on an error), and
// after which prompt.
func (n *Notifier) turnMessage(c live.Card, p Prefs) message {
	agent := n.o.Label(c.Key.Runtime)
	m := message{Type: "turn", Tag: turnTag(c.Key), URL: "/s/" + url.PathEscape(c.Key.Runtime) + "/" + url.PathEscape(c.Key.ID)}
	m.Title, m.Body = agent+" finished", "Your turn."
	if c.TurnFailed {
		m.Title, m.Body = agent+" stopped on an error", "The turn ended on an error the agent reported."
	}
	if project := session.ShortProject(c.Cwd, ""); project != "" {
		m.Title += " · " + project
	}
	switch {
	case p.HideDetails:
		m.Body = "Open paddock to see it."
	case c.LastPrompt != "" && !c.TurnFailed:
		m.Body = history.ClipRunes("Your turn. You asked: "+c.LastPrompt, 100)
	}
	return m
}

// itemMessage says which agent needs what, in at most 100 characters of
// body, and carries device's capability for the item.
func (n *Notifier) itemMessage(it decisions.Item, deviceID string, p Prefs) message {
	agent := n.o.Label(it.Key.Runtime)
	project := session.ShortProject(it.Cwd, "")
	m := message{Type: "item", Tag: it.ID, Item: it.ID,
		URL: "/s/" + url.PathEscape(it.Key.Runtime) + "/" + url.PathEscape(it.Key.ID) + "#item-" + it.ID}
	what := ""
	switch it.Kind {
	case decisions.KindQuestion:
		m.Title = agent + " asks"
		if len(it.Questions) > 0 {
			what = it.Questions[0].Question
		}
	case decisions.KindPlan:
		m.Title = agent + " has a plan"
	default:
		m.Title = agent + " needs approval"
		what = it.Tool
		if c := it.Command(); c != "" {
			what += ": " + c
		}
		m.Actions = []action{{"allow", "Approve"}, {"deny", "Deny"}}
		m.Device, m.Cap = deviceID, n.o.Keys.Capability(deviceID, it.ID)
	}
	if project != "" {
		m.Title += " · " + project
	}
	if p.HideDetails || what == "" {
		m.Body = "Open paddock to see what it asks."
	} else {
		m.Body = history.ClipRunes(what, 100)
	}
	return m
}

func resolvedBody(it decisions.Item) string {
	switch it.Resolution {
	case decisions.Allowed, decisions.Always:
		return "Approved."
	case decisions.Denied:
		return "Denied."
	case decisions.Answered:
		return "Answered."
	}
	return "No longer waiting."
}

// send posts one message; false when it did not reach the push service.
// A subscription the service says is gone (404, 410) is deleted.
func (n *Notifier) send(ctx context.Context, s store.PushSubscription, m message, urgency webpush.Urgency) bool {
	body, err := json.Marshal(m)
	if err != nil {
		return false
	}
	sub := &webpush.Subscription{Endpoint: s.Endpoint, Keys: webpush.Keys{P256dh: s.P256dh, Auth: s.Auth}}
	resp, err := webpush.SendNotificationWithContext(ctx, body, sub, &webpush.Options{HTTPClient: n.o.Client,
		Subscriber: n.o.Subscriber, VAPIDPublicKey: n.o.Keys.Public, VAPIDPrivateKey: n.o.Keys.Private,
		TTL: 600, Urgency: urgency, Topic: topic(m.Tag), RecordSize: 3070})
	if err != nil {
		n.o.Log.Warn("push not sent", "device", s.DeviceID, "host", hostOf(s.Endpoint), "error", err)
		return false
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		n.o.Log.Info("push subscription gone; forgotten", "device", s.DeviceID, "host", hostOf(s.Endpoint), "status", resp.StatusCode)
		if err := n.o.Store.DeletePushSubscription(ctx, s.Endpoint); err != nil {
			n.o.Log.Warn("forgetting a push subscription", "error", err)
		}
		return false
	case resp.StatusCode >= 300:
		n.o.Log.Warn("push refused", "device", s.DeviceID, "host", hostOf(s.Endpoint), "status", resp.StatusCode)
		return false
	}
	return true
}

// topic lets the push service replace a notification not yet delivered
// with a newer one for the same item (at most 32 URL-safe characters).
func topic(tag string) string {
	if len(tag) > 32 {
		return tag[len(tag)-32:]
	}
	return tag
}

// hostOf is the endpoint's host, for logs: the path is a bearer secret.
func hostOf(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	return u.Host
}

// Active reports whether device is paired (not revoked) and subscribed:
// a capability of a revoked device decides nothing.
func (n *Notifier) Active(ctx context.Context, deviceID string) (bool, error) {
	subs, err := n.o.Store.PushSubscriptions(ctx)
	if err != nil {
		return false, err
	}
	for _, s := range subs {
		if s.DeviceID == deviceID {
			return true, nil
		}
	}
	return false, nil
}
