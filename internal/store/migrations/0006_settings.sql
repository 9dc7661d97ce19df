-- The preferences changed from the phone. settings holds the machine's
-- (idle sleep, hook density, ...): a key present overrides the command
-- line's default, a key absent leaves it; the settings package owns the
-- keys and their text. A device's own choices (its theme) are columns of
-- that device.

CREATE TABLE settings (
    key        TEXT    PRIMARY KEY,
    value      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

ALTER TABLE devices ADD COLUMN theme TEXT NOT NULL DEFAULT '';
