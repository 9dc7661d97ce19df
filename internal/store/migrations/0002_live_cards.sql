-- The live state of each session card (internal/live), so a restart of
-- paddock keeps states, dialogs, read baselines, subagents and state
-- history. data is the live package's own JSON; times are Unix ms.

CREATE TABLE live_cards (
    runtime  TEXT    NOT NULL,
    id       TEXT    NOT NULL,
    data     BLOB    NOT NULL,
    saved_at INTEGER NOT NULL,
    PRIMARY KEY (runtime, id)
) STRICT;

-- The first time paddock ran: results older than it are never "unread"
-- (seed 002 §2.6's first-run baseline).
CREATE TABLE first_run (
    only     INTEGER PRIMARY KEY CHECK (only = 1),
    at       INTEGER NOT NULL
) STRICT;
