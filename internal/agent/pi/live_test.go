package pi

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"paddock/internal/procscan"
)

// hiddenPi is a Pi process as /proc shows it (as the
// recordings' liveness-*.txt show): comm "pi", the arguments overwritten, no
// file held open, a terminal.
func hiddenPi(pid int, cwd string) procscan.AgentProcess {
	return procscan.AgentProcess{PID: pid, PPID: 1, Runtime: "pi", Argv: []string{"pi"}, ArgsHidden: true,
		Cwd: cwd, TTY: "/dev/pts/3", Interactive: true}
}

// TestLiveness binds Pi processes to sessions only by positive evidence —
// the hosted terminal's session, PADDOCK_SESSION_ID (id or file), a
// visible --session (file, id, or a prefix naming one file) — and never by
// cwd, mtime or the newest file in a folder.
func TestLiveness(t *testing.T) {
	agent := t.TempDir()
	cwd := t.TempDir()
	idA := "01a22934-ef19-72f8-b96e-4320731443a9"
	idB := "01a22934-f000-7000-8000-000000000002" // same 8-char prefix as A
	idC := "01a22935-0ceb-723a-b9ca-e3a9d1b0b0d3"
	pathA := writeChat(t, agent, idA, cwd, 0, "a")
	pathB := writeChat(t, agent, idB, cwd, 10, "b")
	pathC := writeChat(t, agent, idC, cwd, 20, "c") // the newest in the folder
	relC, _ := filepath.Rel(cwd, pathC)

	withEnv := func(p procscan.AgentProcess, sid string) procscan.AgentProcess { p.SessionID = sid; return p }
	withTerm := func(p procscan.AgentProcess, term string) procscan.AgentProcess { p.TerminalID = term; return p }
	withArg := func(p procscan.AgentProcess, arg string) procscan.AgentProcess {
		p.ArgsHidden, p.Argv, p.ArgSessionID = false, []string{"pi", "--session", arg}, arg
		return p
	}
	terminals := map[string]string{"pdk-a": idA, "pdk-file": pathB, "pdk-unknown": ""}

	tests := []struct {
		name  string
		procs []procscan.AgentProcess
		want  map[string]int // id → pid; absent: not live
	}{
		{"plain pi in the sessions' cwd binds nothing", []procscan.AgentProcess{hiddenPi(100, cwd)}, nil},
		{"PADDOCK_SESSION_ID header id", []procscan.AgentProcess{withEnv(hiddenPi(101, cwd), idA)}, map[string]int{idA: 101}},
		{"PADDOCK_SESSION_ID file path", []procscan.AgentProcess{withEnv(hiddenPi(102, "/"), pathB)}, map[string]int{idB: 102}},
		{"hosted terminal's session id", []procscan.AgentProcess{withTerm(hiddenPi(103, cwd), "pdk-a")}, map[string]int{idA: 103}},
		{"hosted terminal's session file", []procscan.AgentProcess{withTerm(hiddenPi(104, cwd), "pdk-file")}, map[string]int{idB: 104}},
		{"terminal evidence beats the environment",
			[]procscan.AgentProcess{withEnv(withTerm(hiddenPi(105, cwd), "pdk-a"), idC)}, map[string]int{idA: 105}},
		{"unknown terminal falls back to the environment",
			[]procscan.AgentProcess{withEnv(withTerm(hiddenPi(106, cwd), "pdk-unknown"), idC)}, map[string]int{idC: 106}},
		{"visible --session FILE, relative to the process cwd", []procscan.AgentProcess{withArg(hiddenPi(107, cwd), relC)}, map[string]int{idC: 107}},
		{"visible --session absolute FILE", []procscan.AgentProcess{withArg(hiddenPi(108, "/"), pathA)}, map[string]int{idA: 108}},
		{"visible --session full id", []procscan.AgentProcess{withArg(hiddenPi(109, cwd), idB)}, map[string]int{idB: 109}},
		{"visible --session unique prefix", []procscan.AgentProcess{withArg(hiddenPi(110, cwd), "01a22935-0c")}, map[string]int{idC: 110}},
		{"ambiguous prefix binds nothing", []procscan.AgentProcess{withArg(hiddenPi(111, cwd), "01a22934")}, nil},
		{"hidden argv is not read", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := withArg(hiddenPi(112, cwd), idA)
			p.ArgsHidden = true
			return p
		}()}, nil},
		{"print mode is not a live session", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := withEnv(hiddenPi(113, cwd), idA)
			p.Interactive = false
			return p
		}()}, nil},
		{"another runtime's process", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := withEnv(hiddenPi(114, cwd), idA)
			p.Runtime = "opencode"
			return p
		}()}, nil},
		{"a session not on disk yet binds nothing",
			[]procscan.AgentProcess{withEnv(hiddenPi(115, cwd), "01a22999-0000-7000-8000-000000000000")}, nil},
		{"relative file without a readable cwd", []procscan.AgentProcess{withEnv(hiddenPi(116, ""), "x/y.jsonl")}, nil},
		{"two processes on one session: the lower pid",
			[]procscan.AgentProcess{withEnv(hiddenPi(300, cwd), idA), withEnv(hiddenPi(200, cwd), pathA)}, map[string]int{idA: 200}},
		{"several at once", []procscan.AgentProcess{withEnv(hiddenPi(120, cwd), idA), withTerm(hiddenPi(121, cwd), "pdk-file"), hiddenPi(122, cwd)},
			map[string]int{idA: 120, idB: 121}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestScanner(agent, func(o *Options) {
				o.Processes = func(context.Context) ([]procscan.AgentProcess, error) { return tt.procs, nil }
				o.TerminalSession = func(id string) string { return terminals[id] }
			})
			listed := scanAll(t, s)
			if len(listed) != 3 {
				t.Fatalf("listed %d", len(listed))
			}
			for id, info := range listed {
				pid, live := tt.want[id]
				if info.Live != live || info.PID != pid {
					t.Errorf("%s: Live %v PID %d, want %v %d", id, info.Live, info.PID, live, pid)
				}
				got, err := s.Session(context.Background(), id)
				if err != nil || got.Live != info.Live || got.PID != info.PID {
					t.Errorf("Session(%s) = %+v, %v; disagrees with Scan", id, got, err)
				}
			}
		})
	}
}

// A process table that cannot be read is no evidence: the sessions are
// still listed, just not live, and the next good read counts again.
func TestLivenessProcessError(t *testing.T) {
	agent := t.TempDir()
	writeChat(t, agent, "sess", proj, 0, "x")
	fail := true
	s := newTestScanner(agent, func(o *Options) {
		o.Processes = func(context.Context) ([]procscan.AgentProcess, error) {
			if fail {
				return nil, errors.New("no /proc")
			}
			p := hiddenPi(7, proj)
			p.SessionID = "sess"
			return []procscan.AgentProcess{p}, nil
		}
	})
	got, err := s.Scan(context.Background(), 10, nil)
	if err != nil || len(got) != 1 || got[0].Live {
		t.Fatalf("Scan with a failing process table = %+v, %v", got, err)
	}
	fail = false
	if got, _ := s.Scan(context.Background(), 10, nil); !got[0].Live || got[0].PID != 7 {
		t.Errorf("after the table is readable again: %+v", got[0])
	}
}
