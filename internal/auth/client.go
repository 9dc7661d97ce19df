package auth

import "context"

// Request-scoped facts about who is calling, carried in the context so the
// Service API stays as small as its callers need: the web middleware knows
// them, the CLI need not set them.
type ctxKey int

const (
	actorKey ctxKey = iota
	clientIPKey
)

// DefaultActor is recorded in the audit log when the context names no actor:
// a command run on the workstation itself (`paddock token create`).
const DefaultActor = "local"

// WithActor returns a context naming who acts, for the audit log:
// "device:<id>" for a paired device, "token:<id>" for an API token. Set it
// once a request is authenticated, so a revocation or a token minted by a
// stolen phone is traceable to it.
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey, actor)
}

// WithClientIP returns a context carrying the client's address, so Device
// can record where a device was last seen.
func WithClientIP(ctx context.Context, ip string) context.Context {
	return context.WithValue(ctx, clientIPKey, ip)
}

func actorFrom(ctx context.Context) string {
	a, _ := ctx.Value(actorKey).(string)
	if a = cleanText(a, maxActor); a == "" {
		return DefaultActor
	}
	return a
}

// clientIPFrom is the normalized client address, "" if unknown.
func clientIPFrom(ctx context.Context) string {
	ip, _ := ctx.Value(clientIPKey).(string)
	return normalizeIP(ip)
}
