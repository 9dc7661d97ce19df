package usage

import (
	"fmt"
	"strings"
)

// A report sums one way at a time (per day, agent, project or model),
// never their cross product, so each way has a table of its own per day
// — a few rows a day — kept by triggers on the per-session sums (days):
// a row added there is added to each, a row removed taken off, and a
// session that changes project moves its sums. A report over 90 days
// then reads a few hundred rows, whatever the number of sessions.

// sumColumns are the sums every table keeps.
var sumColumns = []string{"calls", "input", "output", "cache_read", "cache_write", "cost", "listed", "unknown_calls", "unknown_tokens"}

// rollup is one way of summing: its table and its key (a column of days,
// or of the session's row as s.<column>).
type rollup struct {
	group, table, key, from string
}

var rollups = []rollup{
	{ByAgent, "agent_days", "runtime", "s.runtime"},
	{ByProject, "project_days", "project", "s.project"},
	{ByModel, "model_days", "model", "d.model"},
}

func rollupFor(group string) (rollup, bool) {
	for _, r := range rollups {
		if r.group == group {
			return r, true
		}
	}
	return rollup{}, false
}

// rollupSchema creates the tables and their triggers.
func rollupSchema() []string {
	cols := strings.Join(sumColumns, ", ")
	typed := make([]string, len(sumColumns))
	add := make([]string, len(sumColumns))
	sub := make([]string, len(sumColumns))
	newVals := make([]string, len(sumColumns))
	dVals := make([]string, len(sumColumns))
	for i, c := range sumColumns {
		typ := "INTEGER"
		if c == "cost" || c == "listed" {
			typ = "REAL"
		}
		typed[i] = c + " " + typ + " NOT NULL"
		add[i] = c + " = %[1]s." + c + " + excluded." + c
		sub[i] = c + " = %[2]s." + c + " - %[1]s." + c
		newVals[i] = "NEW." + c
		dVals[i] = "d." + c
	}
	var out []string
	var ins, del, move []string
	for _, r := range rollups {
		out = append(out, fmt.Sprintf(`CREATE TABLE %s (day INTEGER NOT NULL, %s TEXT NOT NULL, %s, PRIMARY KEY (day, %s)) WITHOUT ROWID`,
			r.table, r.key, strings.Join(typed, ", "), r.key))
		// What a session's row adds, from days d and its session s.
		ins = append(ins, fmt.Sprintf(`INSERT INTO %s (day, %s, %s) SELECT d.day, %s, %s FROM (SELECT NEW.day AS day, NEW.model AS model, %s) d
			JOIN sessions s ON s.num = NEW.num WHERE true ON CONFLICT (day, %s) DO UPDATE SET %s;`,
			r.table, r.key, cols, r.from, strings.Join(dVals, ", "), aliased(newVals), r.key, fmt.Sprintf(strings.Join(add, ", "), r.table)))
		del = append(del, fmt.Sprintf(`UPDATE %s SET %s WHERE day = OLD.day AND %s = (SELECT %s FROM (SELECT OLD.model AS model) d, sessions s WHERE s.num = OLD.num);`,
			r.table, fmt.Sprintf(strings.Join(sub, ", "), "OLD", r.table), r.key, r.from))
	}
	// A session that moved to another project moves its sums.
	move = append(move, fmt.Sprintf(`UPDATE project_days SET %s FROM (SELECT day, %s FROM days WHERE num = NEW.num) d
			WHERE project_days.day = d.day AND project_days.project = OLD.project;`, fmt.Sprintf(strings.Join(sub, ", "), "d", "project_days"), cols),
		fmt.Sprintf(`INSERT INTO project_days (day, project, %s) SELECT day, NEW.project, %s FROM days WHERE num = NEW.num AND true
			ON CONFLICT (day, project) DO UPDATE SET %s;`, cols, cols, fmt.Sprintf(strings.Join(add, ", "), "project_days")))
	return append(out,
		`CREATE TRIGGER days_added AFTER INSERT ON days BEGIN `+strings.Join(ins, " ")+` END`,
		`CREATE TRIGGER days_removed AFTER DELETE ON days BEGIN `+strings.Join(del, " ")+` END`,
		`CREATE TRIGGER session_moved AFTER UPDATE OF project ON sessions WHEN OLD.project <> NEW.project BEGIN `+strings.Join(move, " ")+` END`,
	)
}

// aliased is "NEW.calls AS calls, …".
func aliased(vals []string) string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = v + " AS " + sumColumns[i]
	}
	return strings.Join(out, ", ")
}
