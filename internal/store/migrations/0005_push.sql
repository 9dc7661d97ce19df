-- Web Push subscriptions: one per paired device and browser endpoint. The
-- endpoint and keys are what the browser's PushManager gave; prefs is the
-- push package's JSON of the device's preferences. A revoked device's
-- subscriptions go with it.

CREATE TABLE push_subscriptions (
    endpoint   TEXT    PRIMARY KEY,
    device_id  TEXT    NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    p256dh     TEXT    NOT NULL,
    auth       TEXT    NOT NULL,
    prefs      BLOB    NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX push_subscriptions_device ON push_subscriptions (device_id);
