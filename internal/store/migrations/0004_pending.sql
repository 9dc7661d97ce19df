-- Pending approvals and questions (internal/pending): each resolves exactly
-- once, guarded here by "UPDATE ... WHERE resolution = ''". data is the
-- pending package's own JSON of the item; times are Unix ms, NULL meaning
-- "never" (no expiry) or "not yet" (not resolved).

CREATE TABLE pending_items (
    id          TEXT    PRIMARY KEY,
    runtime     TEXT    NOT NULL,
    session_id  TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER,
    resolution  TEXT    NOT NULL DEFAULT '',
    resolved_by TEXT    NOT NULL DEFAULT '',
    resolved_at INTEGER,
    data        BLOB    NOT NULL,
    CHECK ((resolution = '') = (resolved_at IS NULL))
) STRICT;

-- Start-up finds the items a previous run left pending.
CREATE INDEX pending_items_open ON pending_items (created_at) WHERE resolution = '';
CREATE INDEX pending_items_created ON pending_items (created_at);
