package cursor

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"paddock/internal/procscan"
)

// Chat ids shaped like Cursor's (UUIDs).
const (
	idParent  = "5f0c1d2e-aaaa-4bbb-8ccc-000000000001"
	idTop2    = "5f0c1d2e-aaaa-4bbb-8ccc-000000000002"
	idTop3    = "77777777-aaaa-4bbb-8ccc-000000000003"
	idSub     = "5f0c1d2e-aaaa-4bbb-8ccc-0000000000s1"
	idNested  = "5f0c1d2e-aaaa-4bbb-8ccc-0000000000s2"
	idChain   = "5f0c1d2e-aaaa-4bbb-8ccc-0000000000s3"
	idOrphan  = "5f0c1d2e-aaaa-4bbb-8ccc-0000000000s4"
	idMissing = "99999999-aaaa-4bbb-8ccc-000000000009"
)

// liveTree writes SYNTHETIC chats for the liveness rules: a
// parent with a subagent, a subagent of that subagent naming the root, one
// naming only its direct parent, a subagent whose store names no parent,
// and two unrelated chats in the same folder.
func liveTree(t *testing.T) (root, proj string) {
	root, proj = t.TempDir(), t.TempDir()
	now := time.Now()
	top := func(id string, age time.Duration) {
		writeChat(t, root, chatSpec{id: id, cwd: proj, mtime: now.Add(-age),
			meta:  map[string]any{"title": id, "cwd": proj, "hasConversation": true},
			store: &storeSpec{meta: map[string]any{"agentId": id}, messages: []any{cursorUser("hi")}}})
	}
	sub := func(id string, info map[string]any) {
		meta := map[string]any{"agentId": id, "name": "New Agent"}
		if info != nil {
			meta["subagentInfo"] = info
		}
		writeChat(t, root, chatSpec{id: id, cwd: proj, mtime: now,
			meta:  map[string]any{"cwd": proj, "isSubagent": true, "hasConversation": true},
			store: &storeSpec{meta: meta, messages: []any{cursorUser("sub task")}}})
	}
	top(idParent, 3*time.Hour)
	top(idTop2, 2*time.Hour)
	top(idTop3, time.Hour)
	sub(idSub, map[string]any{"parentAgentId": idParent, "rootParentAgentId": idParent, "toolCallId": "toolu_1", "typeName": "explore"})
	sub(idNested, map[string]any{"parentAgentId": idSub, "rootParentAgentId": idParent, "toolCallId": "toolu_2"})
	sub(idChain, map[string]any{"parentAgentId": idSub, "rootParentAgentId": nil})
	sub(idOrphan, nil)
	return root, proj
}

func storeOf(root, proj, id string) string {
	return filepath.Join(root, "chats", wsOf(proj), id, "store.db")
}

func TestLiveness(t *testing.T) {
	root, proj := liveTree(t)
	st := func(id string) string { return storeOf(root, proj, id) }
	cur := func(pid int) procscan.AgentProcess {
		return procscan.AgentProcess{PID: pid, Runtime: "cursor", Cwd: proj, Interactive: true,
			Started: time.Unix(1_700_000_000+int64(pid), 0)}
	}
	with := func(p procscan.AgentProcess, f func(*procscan.AgentProcess)) procscan.AgentProcess { f(&p); return p }

	tests := []struct {
		name  string
		procs []procscan.AgentProcess
		open  map[int][]string
		err   error
		want  map[string]int // listed chat id → pid; others not live
	}{
		{name: "resume", procs: []procscan.AgentProcess{with(cur(100), func(p *procscan.AgentProcess) { p.ArgSessionID = idTop2 })},
			want: map[string]int{idTop2: 100}},
		{name: "session env var", procs: []procscan.AgentProcess{with(cur(101), func(p *procscan.AgentProcess) { p.SessionID = idTop2 })},
			want: map[string]int{idTop2: 101}},
		{name: "open store.db", procs: []procscan.AgentProcess{cur(102)}, open: map[int][]string{102: {"/dev/null", st(idTop2), st(idTop2) + "-wal"}},
			want: map[string]int{idTop2: 102}},
		{name: "open by an inner process", procs: []procscan.AgentProcess{with(cur(103), func(p *procscan.AgentProcess) { p.Inner = []int{104} })},
			open: map[int][]string{104: {st(idTop3) + "-shm"}}, want: map[string]int{idTop3: 103}},
		// Never by cwd — a process in the chats' folder with no
		// evidence binds nothing.
		{name: "cwd alone never binds", procs: []procscan.AgentProcess{cur(105)}, want: nil},
		// paddock's 8-character placeholder is no prefix match.
		{name: "placeholder prefix", procs: []procscan.AgentProcess{with(cur(106), func(p *procscan.AgentProcess) { p.SessionID = idTop2[:8]; p.ArgSessionID = idTop2[:8] })},
			want: nil},
		{name: "a store outside chats/", procs: []procscan.AgentProcess{cur(107)}, open: map[int][]string{107: {"/elsewhere/" + idTop2 + "/store.db"}}, want: nil},
		// Regressions (corral's test_live_flags_*):
		{name: "resume subagent marks parent live", procs: []procscan.AgentProcess{with(cur(110), func(p *procscan.AgentProcess) { p.ArgSessionID = idSub })},
			want: map[string]int{idParent: 110}},
		{name: "open subagent store marks parent live", procs: []procscan.AgentProcess{cur(111)}, open: map[int][]string{111: {st(idSub)}},
			want: map[string]int{idParent: 111}},
		{name: "nested subagent binds root parent", procs: []procscan.AgentProcess{with(cur(112), func(p *procscan.AgentProcess) { p.ArgSessionID = idNested })},
			want: map[string]int{idParent: 112}},
		{name: "subagent chain without root id", procs: []procscan.AgentProcess{with(cur(113), func(p *procscan.AgentProcess) { p.SessionID = idChain })},
			want: map[string]int{idParent: 113}},
		{name: "parent pid wins over subagent pid", procs: []procscan.AgentProcess{cur(120), cur(300)},
			open: map[int][]string{120: {st(idSub)}, 300: {st(idParent)}}, want: map[string]int{idParent: 300}},
		{name: "subagent without parent store does not guess", procs: []procscan.AgentProcess{with(cur(121), func(p *procscan.AgentProcess) { p.ArgSessionID = idOrphan })},
			want: nil},
		// The original process (no --resume) beats a second --resume of
		// the same chat, though that one has the lower pid.
		{name: "original beats second resume", procs: []procscan.AgentProcess{
			with(cur(150), func(p *procscan.AgentProcess) { p.ArgSessionID = idTop2 }), cur(400)},
			open: map[int][]string{400: {st(idTop2)}, 150: {st(idTop2)}}, want: map[string]int{idTop2: 400}},
		{name: "resume before open store", procs: []procscan.AgentProcess{with(cur(500), func(p *procscan.AgentProcess) { p.ArgSessionID = idTop2 })},
			open: map[int][]string{500: {st(idTop3)}}, want: map[string]int{idTop2: 500}},
		{name: "unknown resume id falls to open store", procs: []procscan.AgentProcess{with(cur(501), func(p *procscan.AgentProcess) { p.ArgSessionID = idMissing })},
			open: map[int][]string{501: {st(idTop3)}}, want: map[string]int{idTop3: 501}},
		{name: "open store before env", procs: []procscan.AgentProcess{with(cur(502), func(p *procscan.AgentProcess) { p.SessionID = idTop2 })},
			open: map[int][]string{502: {st(idTop3)}}, want: map[string]int{idTop3: 502}},
		{name: "other runtimes ignored", procs: []procscan.AgentProcess{
			{PID: 600, Runtime: "claude", ArgSessionID: idTop2, SessionID: idTop2}}, open: map[int][]string{600: {st(idTop2)}}, want: nil},
		{name: "process list fails", err: errors.New("no /proc"), want: nil},
		{name: "two chats two processes", procs: []procscan.AgentProcess{
			with(cur(700), func(p *procscan.AgentProcess) { p.ArgSessionID = idTop2 }),
			with(cur(701), func(p *procscan.AgentProcess) { p.SessionID = idTop3 })},
			want: map[string]int{idTop2: 700, idTop3: 701}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{Dir: root, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return tc.procs, tc.err }})
			s.openFiles = func(pid int) ([]string, error) {
				if f, ok := tc.open[pid]; ok {
					return f, nil
				}
				return nil, procscan.ErrNotRunning
			}
			got := scanAll(t, s)
			if len(got) != 3 {
				t.Fatalf("listed %d chats, want the 3 top-level ones (subagents never listed)", len(got))
			}
			for id, info := range got {
				wantPID, live := tc.want[id]
				if info.Live != live || info.PID != wantPID {
					t.Errorf("Scan %s: live %v pid %d, want %v %d", id[len(id)-2:], info.Live, info.PID, live, wantPID)
				}
				one, err := s.Session(context.Background(), id)
				if err != nil || one.Live != live || one.PID != wantPID {
					t.Errorf("Session %s: live %v pid %d (%v), want %v %d", id[len(id)-2:], one.Live, one.PID, err, live, wantPID)
				}
			}
		})
	}
}

// The listed chats stay subagent-free and store.db is read only for a
// subagent a live process hits ("父指针只在判活命中未入列 chatId
// 时按需读取").
func TestLivenessReadsStoresOnlyOnDemand(t *testing.T) {
	root, _ := liveTree(t)
	var procs []procscan.AgentProcess
	s := New(Options{Dir: root, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return procs, nil }})
	scanAll(t, s)
	if n := s.storeReads.Load(); n != 0 {
		t.Errorf("no live process, yet %d store reads", n)
	}
	procs = []procscan.AgentProcess{{PID: 1, Runtime: "cursor", ArgSessionID: idTop2}}
	scanAll(t, s)
	if n := s.storeReads.Load(); n != 0 {
		t.Errorf("a live top-level chat needed %d store reads", n)
	}
	procs = []procscan.AgentProcess{{PID: 1, Runtime: "cursor", ArgSessionID: idSub}}
	scanAll(t, s)
	scanAll(t, s) // same signature: cached
	procs = []procscan.AgentProcess{{PID: 2, Runtime: "cursor", ArgSessionID: idSub}}
	scanAll(t, s) // new process, same store: the parent is cached
	if n := s.storeReads.Load(); n != 1 {
		t.Errorf("%d store reads for one subagent, want 1", n)
	}
}

// The process set is in Scan's signature: a process exiting is a new
// answer although no file changed.
func TestLivenessSignature(t *testing.T) {
	root, _ := liveTree(t)
	procs := []procscan.AgentProcess{{PID: 9, Runtime: "cursor", ArgSessionID: idTop2}}
	s := New(Options{Dir: root, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return procs, nil }})
	if !scanAll(t, s)[idTop2].Live {
		t.Fatal("not live")
	}
	parses := s.parses.Load()
	procs = nil
	if scanAll(t, s)[idTop2].Live {
		t.Error("still live after its process exited")
	}
	if s.parses.Load() != parses {
		t.Error("a process change reparsed the chats")
	}
}

// Cursor's launcher runs `exec -a "$0" node …/cursor-agent/…/index.js`, so
// comm is node (newer builds: MainThread) and the agent is recognised by
// its command line; its table (process) reads --resume from it.
func TestLivenessFromCommandLine(t *testing.T) {
	root, _ := liveTree(t)
	argv := []string{"agent", "/home/u/.local/share/cursor-agent/versions/2026.09.18-abc/index.js", "--resume", idTop3}
	inv, ok := procscan.NewMatcher(process()).Classify(argv)
	if !ok || inv.Runtime != "cursor" || inv.SessionID != idTop3 {
		t.Fatalf("Classify(%q) = %+v, %v", argv, inv, ok)
	}
	p := procscan.AgentProcess{PID: 4242, Runtime: inv.Runtime, Argv: argv, ArgSessionID: inv.SessionID}
	s := New(Options{Dir: root, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return []procscan.AgentProcess{p}, nil }})
	if info := scanAll(t, s)[idTop3]; !info.Live || info.PID != 4242 {
		t.Errorf("launcher process: live %v pid %d", info.Live, info.PID)
	}
}
