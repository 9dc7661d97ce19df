package cursor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"paddock/internal/session"
)

// Delete removes a chat's own files: its folder chats/<ws>/<chatId>/
// (meta.json, prompt_history.json, store.db and its -wal/-shm: that folder
// holds that one chat and nothing else), the folders of its subagents'
// chats in the same workspace folder (those whose store.db names it as
// parent or root parent), and its transcripts,
// projects/*/agent-transcripts/<chatId>.jsonl|.txt and <chatId>/ (which
// holds its subagents' transcripts). The workspace folder, other chats
// and everything else of Cursor's stay. The Cursor Agent CLI has no
// command to delete a chat, so these files are removed directly.
//
// A chat a running Cursor process holds (its store.db open, --resume,
// PADDOCK_SESSION_ID — its own or a subagent's) is refused with
// session.ErrLive, and so is any chat when the processes cannot be listed.
// An id that is not a listed chat is session.ErrNotFound.
func (s *Scanner) Delete(ctx context.Context, id string) error {
	if !validID(id) || s.dir == "" {
		return session.ErrNotFound
	}
	info, err := s.Session(ctx, id)
	if err != nil {
		return err
	}
	if info.Live {
		return fmt.Errorf("cursor: chat %s is open in Cursor (pid %d): %w", id, info.PID, session.ErrLive)
	}
	evs, err := s.evidence(ctx)
	if err != nil {
		return fmt.Errorf("cursor: cannot list processes to check that chat %s is not in use; not deleting it: %w", id, err)
	}

	chatDirs, _ := filepath.Glob(filepath.Join(s.chatsDir(), "*", id)) // validID: no glob characters
	held := []string{id}
	var subDirs []string
	for _, dir := range chatDirs {
		for _, sub := range s.subagentsOf(ctx, filepath.Base(filepath.Dir(dir)), id) {
			held = append(held, sub.id)
			subDirs = append(subDirs, sub.dir)
		}
	}
	for _, ev := range evs {
		for _, h := range held {
			if ev.resume == h || ev.env == h || slices.Contains(ev.open, h) {
				return fmt.Errorf("cursor: chat %s is in use by Cursor (pid %d): %w", id, ev.pid, session.ErrLive)
			}
		}
	}

	// No Scan runs while the files go: it would cache their summaries.
	s.scanMu.Lock()
	defer s.scanMu.Unlock()
	var errs []error
	remove := func(path string) {
		if err := os.RemoveAll(path); err != nil {
			errs = append(errs, err)
		}
	}
	for _, dir := range slices.Concat(chatDirs, subDirs) {
		remove(dir)
	}
	for _, p := range s.transcriptFiles(id) {
		remove(p)
	}

	s.mu.Lock()
	for _, dir := range slices.Concat(chatDirs, subDirs) {
		s.summaries.Forget(dir)
		delete(s.parents, filepath.Join(dir, "store.db"))
	}
	s.mu.Unlock()
	if len(errs) > 0 {
		return fmt.Errorf("cursor: deleting chat %s: %w", id, errors.Join(errs...))
	}
	return nil
}

// subagentsOf returns the chats of workspace folder ws whose store.db
// leads, parent by parent, to chat id: its subagents' chats. Only a chat
// whose meta.json calls it a subagent has a parent (as binder.top reads
// it), so the walk stops at any other before opening its store: opening
// one may copy the database, and a workspace holds many top-level chats.
func (s *Scanner) subagentsOf(ctx context.Context, ws, id string) []*chat {
	chats, _ := s.workspace(s.chatsDir(), ws)
	byID := make(map[string]*chat, len(chats))
	for _, c := range chats {
		byID[c.id] = c
	}
	var out []*chat
	for _, c := range chats {
		if c.id == id {
			continue
		}
		cur := c
		for range maxSubagentDepth {
			if !s.summary(ctx, cur).subagent {
				break
			}
			parent := s.parentOf(ctx, cur)
			if parent == id {
				out = append(out, c)
				break
			}
			if cur = byID[parent]; cur == nil {
				break
			}
		}
	}
	return out
}

// transcriptFiles lists chat id's transcripts: both layouts (and the old
// .txt), in every project folder.
func (s *Scanner) transcriptFiles(id string) []string {
	var out []string
	for _, pattern := range []string{id + ".jsonl", id + ".txt", id} {
		m, _ := filepath.Glob(filepath.Join(s.dir, "projects", "*", "agent-transcripts", pattern))
		out = append(out, m...)
	}
	return out
}
