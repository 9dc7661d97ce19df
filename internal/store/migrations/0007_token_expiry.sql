-- An API token may carry an end: after expires_at (unix ms) it no longer
-- authenticates. NULL: it lasts until revoked.
ALTER TABLE api_tokens ADD COLUMN expires_at INTEGER;
