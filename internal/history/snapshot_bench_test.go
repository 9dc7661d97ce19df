package history

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSnapshot is what reading an agent's database through a private
// copy costs, for a database of 10 MB and one of 200 MB (4 KB rows, built
// in the benchmark) held open by its writer in WAL mode with 1 MB of rows
// in its -wal, as a running agent keeps it. Each iteration opens the
// database, reads its newest row and closes it:
//
//   - in-place: what the scanners did before, SQLite on the agent's own
//     file (mode=ro), for comparison;
//   - first: a new Snapshots: the database and its -wal copied whole;
//   - unchanged: the kept copy reused;
//   - wal-append: the writer commits one row first (untimed), so the -wal
//     alone is copied again (the -wal grows from 1 MB by 8 KB a commit
//     and is checkpointed back to 1 MB every 64 iterations, untimed).
func BenchmarkSnapshot(b *testing.B) {
	for _, size := range []int64{10 << 20, 200 << 20} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			a := benchAgentDB(b, size)
			read := func(b *testing.B, db *sql.DB) {
				var last int
				if err := db.QueryRow("SELECT max(id) FROM t").Scan(&last); err != nil || last != a.rows {
					b.Fatalf("newest row %d, %v; want %d", last, err, a.rows)
				}
			}
			b.Run("in-place", func(b *testing.B) {
				for b.Loop() {
					db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: a.path}).EscapedPath()+"?mode=ro")
					if err != nil {
						b.Fatal(err)
					}
					read(b, db)
					db.Close()
				}
			})
			b.Run("first", func(b *testing.B) {
				for b.Loop() {
					s := NewSnapshots(SnapshotOptions{Dir: b.TempDir(), KeepBytes: 1 << 40})
					db, err := s.OpenDB(context.Background(), a.path)
					if err != nil {
						b.Fatal(err)
					}
					read(b, db.DB)
					db.Close()
					s.Close()
				}
			})
			s := NewSnapshots(SnapshotOptions{Dir: b.TempDir(), KeepBytes: 1 << 40})
			defer s.Close()
			// The writer's last commit is old news: no copy is taken again
			// for being racy.
			s.now = func() time.Time { return time.Now().Add(time.Minute) }
			open := func(b *testing.B) {
				db, err := s.OpenDB(context.Background(), a.path)
				if err != nil {
					b.Fatal(err)
				}
				read(b, db.DB)
				db.Close()
			}
			b.Run("unchanged", func(b *testing.B) {
				open(b)
				for b.Loop() {
					open(b)
				}
				b.ReportMetric(float64(s.dbCopies.Load()+s.walCopies.Load()-2)/float64(b.N), "copies/op")
			})
			b.Run("wal-append", func(b *testing.B) {
				open(b)
				var dbCopies, walCopies int64
				for i := range b.N {
					b.StopTimer()
					if i%64 == 63 {
						a.exec("PRAGMA wal_checkpoint(TRUNCATE)")
						a.add(250, 4000)
						open(b)
					}
					a.add(1, 4000)
					db0, wal0 := s.dbCopies.Load(), s.walCopies.Load()
					b.StartTimer()
					open(b)
					b.StopTimer()
					dbCopies += s.dbCopies.Load() - db0
					walCopies += s.walCopies.Load() - wal0
					b.StartTimer()
				}
				b.ReportMetric(float64(dbCopies)/float64(b.N), "db-copies/op")
				b.ReportMetric(float64(walCopies)/float64(b.N), "wal-copies/op")
			})
		})
	}
}

// benchAgentDB builds a WAL-mode database of about size bytes, checkpoints
// it, and leaves 1 MB of rows in its -wal with the writer open.
func benchAgentDB(b *testing.B, size int64) *agentDB {
	b.Helper()
	a := &agentDB{t: b, dir: b.TempDir()}
	a.path = filepath.Join(a.dir, "agent.db")
	a.open()
	for {
		a.add(500, 4000)
		st, err := os.Stat(a.path + "-wal")
		if err != nil {
			b.Fatal(err)
		}
		if st.Size() > 64<<20 {
			a.exec("PRAGMA wal_checkpoint(TRUNCATE)")
		}
		if db, err := os.Stat(a.path); err == nil && db.Size()+st.Size() >= size-(1<<20) {
			break
		}
	}
	a.exec("PRAGMA wal_checkpoint(TRUNCATE)")
	a.add(250, 4000)
	if _, err := os.Stat(a.path + "-shm"); err != nil {
		b.Fatal("the writer holds no -shm")
	}
	db, _ := os.Stat(a.path)
	wal, _ := os.Stat(a.path + "-wal")
	b.Logf("database %.1f MB, -wal %.1f MB, %d rows of 4 KB", float64(db.Size())/(1<<20), float64(wal.Size())/(1<<20), a.rows)
	return a
}
