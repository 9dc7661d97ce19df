-- One row the store rewrites to learn whether its database takes writes
-- (a full or read-only disk): health says so, and recovers, from it.
CREATE TABLE write_probe (
    only INTEGER PRIMARY KEY CHECK (only = 1),
    at   INTEGER NOT NULL
);
