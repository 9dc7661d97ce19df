-- The terminals paddock started agents in (internal/hosted), so a restart
-- re-attaches the ones still running and ends the cards of the others.

CREATE TABLE hosted_terminals (
    id         TEXT    PRIMARY KEY,
    runtime    TEXT    NOT NULL,
    cwd        TEXT    NOT NULL,
    data       BLOB    NOT NULL, -- the hosted package's own JSON (pane, argv, resume)
    created_at INTEGER NOT NULL
) STRICT;
