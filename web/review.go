package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"paddock/views"
)

// A review is comments on lines of the session's diffs, sent to the agent
// as one message.
const (
	maxReviewComments = 50
	maxReviewComment  = 2000 // characters
	maxReviewQuote    = 500
	maxReviewRef      = 500
)

// reviewComment is one comment on one line: where (file:line), the line
// as the diff shows it, and what the user says of it.
type reviewComment struct {
	ref, quote, text string
}

// reviewMessage is the message a review sends: every comment with its
// place and the line it is about, numbered, in the order made.
func reviewMessage(cs []reviewComment) string {
	var b strings.Builder
	noun := "comments"
	if len(cs) == 1 {
		noun = "comment"
	}
	fmt.Fprintf(&b, "Review of your changes (%d %s, from paddock):\n", len(cs), noun)
	for i, c := range cs {
		fmt.Fprintf(&b, "\n%d. %s\n", i+1, c.ref)
		if c.quote != "" {
			fmt.Fprintf(&b, "   > %s\n", c.quote)
		}
		for _, l := range strings.Split(c.text, "\n") {
			b.WriteString("   " + strings.TrimRight(l, " \t\r") + "\n")
		}
	}
	b.WriteString("\nPlease address each comment.")
	return b.String()
}

// sendReview is the activity panel's Send review: the comments made on
// the diffs' lines, as one message to the session's agent.
func (s *Server) sendReview(c *echo.Context) error {
	if s.opts.Hosting == nil {
		return errNoHosting
	}
	r := c.Request()
	if err := r.ParseForm(); err != nil {
		return newError(http.StatusBadRequest, "bad_form", "The review could not be read.")
	}
	refs, quotes, texts := r.PostForm["ref"], r.PostForm["quote"], r.PostForm["comment"]
	if len(refs) != len(texts) || len(quotes) != len(texts) {
		return newError(http.StatusBadRequest, "bad_review", "Each comment needs its line (ref), the quoted line and its text.")
	}
	var cs []reviewComment
	for i := range texts {
		t := strings.TrimSpace(texts[i])
		if t == "" {
			continue
		}
		switch {
		case utf8.RuneCountInString(t) > maxReviewComment:
			return newError(http.StatusBadRequest, "bad_review", "A comment is at most "+strconv.Itoa(maxReviewComment)+" characters.")
		case refs[i] == "" || len(refs[i]) > maxReviewRef || strings.ContainsAny(refs[i], "\n\r"):
			return newError(http.StatusBadRequest, "bad_review", "A comment's line is file or file:line, on one line.")
		case len(quotes[i]) > maxReviewQuote || strings.ContainsAny(quotes[i], "\n\r"):
			return newError(http.StatusBadRequest, "bad_review", "A comment quotes one line of the diff.")
		}
		cs = append(cs, reviewComment{ref: refs[i], quote: quotes[i], text: t})
	}
	switch {
	case len(cs) == 0:
		return newError(http.StatusBadRequest, "empty_review", "A review needs at least one comment: tap a line of a diff to write one.")
	case len(cs) > maxReviewComments:
		return newError(http.StatusBadRequest, "bad_review", "A review holds at most "+strconv.Itoa(maxReviewComments)+" comments.")
	}
	card, err := s.liveCard(c)
	if err != nil {
		return s.result(c, err)
	}
	d, err := s.opts.Hosting.Send(r.Context(), card, reviewMessage(cs))
	if err != nil {
		return s.result(c, err)
	}
	if !d.Delivered && !d.Queued {
		return s.render(c, http.StatusOK, views.SendResult(views.Result{Text: "Not delivered: " + d.Reason + ".", Screen: d.Screen}))
	}
	s.log.Info("review sent", "session", card.Key.String(), "comments", len(cs))
	n := fmt.Sprintf("%d comments", len(cs))
	if len(cs) == 1 {
		n = "1 comment"
	}
	text := "Review sent: " + n + "."
	if d.Queued {
		text = "Review typed while the agent works (" + n + "): it takes it when its turn ends."
	}
	return s.render(c, http.StatusOK, views.SendResult(views.Result{OK: true, Text: text}))
}
