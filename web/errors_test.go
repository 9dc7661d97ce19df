package web

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"paddock/internal/catalog"
	"paddock/internal/session"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		code   string
	}{
		{"unsupported history", fmt.Errorf("events of kimi:x: %w", catalog.ErrUnsupported), http.StatusNotImplemented, "unsupported"},
		{"live session", session.ErrLive, http.StatusConflict, "session_live"},
		{"no session", fmt.Errorf("load: %w", session.ErrNotFound), http.StatusNotFound, "not_found"},
		{"anything else", errors.New("disk on fire"), http.StatusInternalServerError, "internal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ae := classify(tc.err)
			if ae.Status != tc.status || ae.Code != tc.code {
				t.Fatalf("got %d %s, want %d %s", ae.Status, ae.Code, tc.status, tc.code)
			}
			if ae.Msg == "" || ae.Msg == tc.err.Error() {
				t.Fatalf("message %q is not a client-safe text", ae.Msg)
			}
		})
	}
}
