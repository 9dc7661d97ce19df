package pi

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// longSession writes a v3 session of about size bytes with what a long,
// worked-on file holds: renames and model changes in the middle, rewinds
// to older entries, torn, broken and blank lines, CRLF, and late in the
// file an entry that reuses the id of one of the first: the current
// branch runs back to that one's child, which the reused id makes a root.
func longSession(t *testing.T, size int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	b.WriteString(headerLine("long", proj, 0))
	parent, reused := "", false
	for i := 0; b.Len() < size; i++ {
		id := fmt.Sprintf("e%d", i)
		role := []string{"user", "assistant"}[i%2]
		line := msgLine(id, parent, role, fmt.Sprintf("%s %d", role, i), i)
		switch r.IntN(50) {
		case 0:
			line = nameLine(id, parent, fmt.Sprintf("name %d", i), i)
		case 1:
			line = jsonLine(map[string]any{"type": "model_change", "id": id, "parentId": parent,
				"timestamp": ts(i), "provider": "mock", "modelId": fmt.Sprintf("model-%d", i)})
		case 2:
			b.WriteString("not json\n")
		case 3:
			b.WriteString(" \n")
		case 4: // torn, and nothing points at it
			b.WriteString(line[:len(line)/2] + "\n")
			continue
		case 5: // a rewind: the entry continues an older one
			line = msgLine(id, fmt.Sprintf("e%d", max(0, i-1-r.IntN(20))), role, fmt.Sprintf("%s %d", role, i), i)
		case 6:
			if !reused && b.Len() > size*3/4 {
				reused, id = true, "e5"
				line = msgLine(id, parent, role, fmt.Sprintf("%s %d", role, i), i)
			}
		case 7:
			line = strings.Replace(line, "\n", "\r\n", 1)
		}
		b.WriteString(line)
		parent = id
	}
	path := filepath.Join(t.TempDir(), "long.jsonl")
	writeFile(t, path, b.String())
	return path
}

// A long file read in ranges in parallel gives what reading it in one
// piece gives: the summary, the conversation and the events, each alone
// and read together as Session reads them.
func TestRangesReadAsOne(t *testing.T) {
	ctx := context.Background()
	path := longSession(t, minSplitBytes+2<<20)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	size := st.Size()

	var one summaryBuilder
	one.read(io.NewSectionReader(f, 0, size), size)
	wantSum := one.finish()
	wantT, err := readTranscriptWith(ctx, io.NewSectionReader(f, 0, size), &transcript{withEvents: true})
	if err != nil {
		t.Fatal(err)
	}
	wantMsgs, wantEvents := wantT.messages(), wantT.events()
	if b := wantT.branch(); wantSum.titleSource != "custom" || wantT.badLines == 0 || len(b) < len(wantT.nodes)/2 ||
		!slices.Contains(b, 6) || slices.Contains(b, 5) { // e6, whose parent is the late e5
		t.Fatalf("the file is not what the test needs: %+v, %d of %d nodes on the branch, %d bad lines",
			wantSum, len(wantT.branch()), len(wantT.nodes), wantT.badLines)
	}

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{2, 3, 4} {
		runtime.GOMAXPROCS(procs)
		if starts, _ := splitLines(f, size); len(starts) != procs {
			t.Fatalf("%d CPUs: %d ranges", procs, len(starts))
		}
		sum, err := readSummary(path, size)
		if err != nil || !reflect.DeepEqual(sum, wantSum) {
			t.Errorf("%d CPUs: summary %+v, %v\nwant %+v", procs, sum, err, wantSum)
		}
		tr, err := readTranscriptFile(ctx, f, &transcript{withEvents: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.messages(); !reflect.DeepEqual(got, wantMsgs) {
			t.Errorf("%d CPUs: %d messages, want %d", procs, len(got), len(wantMsgs))
		}
		if got := tr.events(); !reflect.DeepEqual(got, wantEvents) {
			t.Errorf("%d CPUs: %d events, want %d", procs, len(got), len(wantEvents))
		}
		if tr.badLines != wantT.badLines {
			t.Errorf("%d CPUs: %d bad lines, want %d", procs, tr.badLines, wantT.badLines)
		}
		both := fileRead{sum: &summaryBuilder{}, t: &transcript{}}
		if err := both.open(path, size); err != nil {
			t.Fatal(err)
		}
		if sum := both.summary(); !reflect.DeepEqual(sum, wantSum) {
			t.Errorf("%d CPUs, read together: summary %+v\nwant %+v", procs, sum, wantSum)
		}
		if tr, err := both.transcript(); err != nil || !reflect.DeepEqual(tr.messages(), wantMsgs) {
			t.Errorf("%d CPUs, read together: conversation differs (%v)", procs, err)
		}
	}
}

// piTime reads Pi's own timestamps as time.Parse does, and leaves every
// other form to it.
func TestPiTime(t *testing.T) {
	check := func(s string) {
		t.Helper()
		got, ok := piTime([]byte(`"` + s + `"`))
		want, err := time.Parse(time.RFC3339Nano, s)
		if ok && (err != nil || got != want.UTC()) {
			t.Errorf("%s: %v, want %v (%v)", s, got, want, err)
		}
		if !ok && err == nil && len(s) == len("2006-01-02T15:04:05.000Z") && strings.HasSuffix(s, "Z") {
			t.Errorf("%s: refused, time.Parse reads %v", s, want)
		}
	}
	for y := 1999; y <= 2029; y++ {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				for _, hms := range []string{"00:00:00.000", "23:59:59.999", "24:00:00.000", "12:60:00.000", "12:00:60.000"} {
					check(fmt.Sprintf("%04d-%02d-%02dT%sZ", y, m, d, hms))
				}
			}
		}
	}
	for _, s := range []string{"2026-11-29T21:27:52.3Z", "2026-11-29T21:27:52Z", "2026-11-29T21:27:52.300+01:00",
		"2026-11-29 21:27:52.300Z", "2026-1a-29T21:27:52.300Z", "+026-11-29T21:27:52.300Z", "2026-11-29T21:27:52.300z"} {
		if _, ok := piTime([]byte(`"` + s + `"`)); ok {
			t.Errorf("%s: read, want it left to time.Parse", s)
		}
	}
}
