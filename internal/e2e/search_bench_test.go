package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/corpus"
	"paddock/internal/testkit/servetest"
)

// BenchmarkFirstBoardWhileIndexing: paddock serve started over the
// generated machine (corpus.Generate: 10,000 sessions, 1.2 GB) with no
// search index yet. It reports how long after the start the board first
// answers with its cards (GET /, as the phone asks for it), whether the
// index was still building then, and the board's latency while the index
// builds (p50, p99 of a GET / every 50 ms until the index is ready).
func BenchmarkFirstBoardWhileIndexing(b *testing.B) {
	home := b.TempDir()
	c, _, err := corpus.Generate(home, corpus.Options{Testdata: filepath.Join("..", "..", "testdata")})
	if err != nil {
		b.Fatal(err)
	}
	c.Close()
	var up, first, during []time.Duration
	building := 0
	for b.Loop() {
		data := filepath.Join(b.TempDir(), "data")
		out, err := exec.Command(servetest.Binary(b), "token", "create", "--data-dir", data, "bench").Output()
		if err != nil {
			b.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		token := lines[len(lines)-1]
		start := time.Now()
		srv := servetest.StartAt(b, home, data, nil)
		pem, err := os.ReadFile(filepath.Join(data, "ca.pem"))
		if err != nil {
			b.Fatal(err)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
		base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
		get := func(path string) (string, time.Duration) {
			req, _ := http.NewRequest(http.MethodGet, base+path, nil)
			req.Header.Set("Authorization", "Bearer "+token)
			t0 := time.Now()
			resp, err := hc.Do(req)
			if err != nil {
				return "", 0
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			return string(body), time.Since(t0)
		}
		indexing := func() bool {
			body, _ := get("/api/v1/search?q=" + corpus.Marker)
			return !strings.Contains(body, `"ready":true`)
		}
		up = append(up, time.Since(start)) // the banner: serve listens
		for {
			if body, _ := get("/"); strings.Contains(body, `data-testid="card"`) {
				first = append(first, time.Since(start))
				break
			}
			if time.Since(start) > 60*time.Second {
				b.Fatal("no board within 60 s")
			}
			time.Sleep(5 * time.Millisecond)
		}
		if indexing() {
			building++
		}
		for deadline := time.Now().Add(2 * time.Minute); indexing(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatal("the index not built within 2 minutes")
			}
			if body, d := get("/"); strings.Contains(body, `data-testid="card"`) {
				during = append(during, d)
			}
		}
		srv.Stop(b)
	}
	slices.Sort(first)
	slices.Sort(up)
	b.ReportMetric(float64(up[len(up)/2].Milliseconds()), "listening-ms")
	slices.Sort(during)
	b.ReportMetric(float64(first[len(first)/2].Milliseconds()), "first-board-ms")
	b.ReportMetric(float64(building)/float64(len(first)), "still-indexing")
	if len(during) > 0 {
		b.ReportMetric(float64(during[len(during)/2].Microseconds())/1000, "board-p50-ms")
		b.ReportMetric(float64(during[len(during)*99/100].Microseconds())/1000, "board-p99-ms")
		b.ReportMetric(float64(len(during)), "boards")
	}
}
