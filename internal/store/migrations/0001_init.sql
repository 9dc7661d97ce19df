-- Devices, pairing codes, API tokens and the security audit log.
-- Secrets are stored only as SHA-256 digests (32-byte BLOBs); times are Unix
-- milliseconds, NULL meaning "never".

CREATE TABLE devices (
    id           TEXT    PRIMARY KEY,
    name         TEXT    NOT NULL,
    user_agent   TEXT    NOT NULL DEFAULT '',
    token_hash   BLOB    NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER,
    last_ip      TEXT    NOT NULL DEFAULT '',
    revoked_at   INTEGER
) STRICT;

CREATE TABLE pairing_codes (
    code_hash      BLOB    PRIMARY KEY CHECK (length(code_hash) = 32),
    created_at     INTEGER NOT NULL,
    expires_at     INTEGER NOT NULL,
    used_at        INTEGER,
    used_by_device TEXT    REFERENCES devices (id) ON DELETE SET NULL
) STRICT;

CREATE TABLE api_tokens (
    id           TEXT    PRIMARY KEY,
    name         TEXT    NOT NULL,
    token_hash   BLOB    NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
) STRICT;

CREATE TABLE audit_log (
    id     INTEGER PRIMARY KEY,
    at     INTEGER NOT NULL,
    actor  TEXT    NOT NULL,
    action TEXT    NOT NULL,
    detail TEXT    NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX audit_log_at ON audit_log (at);
