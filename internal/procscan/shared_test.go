package procscan

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestSharedWalksOncePerTTL(t *testing.T) {
	var mu sync.Mutex
	walks := 0
	fail := false
	scan := func(context.Context) ([]AgentProcess, error) {
		mu.Lock()
		defer mu.Unlock()
		walks++
		if fail {
			return nil, errors.New("no /proc")
		}
		return []AgentProcess{{PID: 7, Argv: []string{"codex"}, Inner: []int{8}}}, nil
	}
	clock := time.Unix(1000, 0)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	agents := sharedWith(time.Second, scan, now)

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			ps, err := agents(t.Context())
			if err != nil || len(ps) != 1 || ps[0].PID != 7 {
				t.Errorf("agents: %+v %v", ps, err)
			}
		})
	}
	wg.Wait()
	if walks != 1 {
		t.Fatalf("8 callers within the ttl walked %d times", walks)
	}
	// A caller's changes stay its own.
	ps, _ := agents(t.Context())
	ps[0].Argv[0], ps[0].Inner[0] = "x", 0
	if ps2, _ := agents(t.Context()); ps2[0].Argv[0] != "codex" || ps2[0].Inner[0] != 8 {
		t.Fatalf("a caller's edit leaked: %+v", ps2[0])
	}
	mu.Lock()
	clock = clock.Add(time.Second)
	fail = true
	mu.Unlock()
	if _, err := agents(t.Context()); err == nil || walks != 2 {
		t.Fatalf("after the ttl: err %v, walks %d", err, walks)
	}
}
