// Command paddock-corpus writes a machine's worth of agent sessions into
// an empty directory, for measuring paddock at scale (`make corpus`): by
// default 10,000 sessions (about 1.2 GB), most of them Claude Code's and
// Codex's, over 50 projects and 90 days, four grown to 50 MB, twenty
// carrying a rare word and a phrase in a later turn. The same seed writes
// the same files. Point paddock at it with HOME=DIR.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"paddock/internal/testkit/corpus"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "paddock-corpus:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("paddock-corpus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o corpus.Options
	out := fs.String("o", "", "the directory to write (new, or empty); it becomes the HOME the sessions live in")
	fs.IntVar(&o.Sessions, "sessions", 10_000, "sessions in all")
	fs.Uint64Var(&o.Seed, "seed", 1, "which sessions grow and carry the markers")
	fs.IntVar(&o.Days, "days", 90, "the days the sessions' times spread over")
	fs.IntVar(&o.Big, "big", 4, "Claude Code and Codex sessions grown to -big-mb")
	bigMB := fs.Int("big-mb", 50, "their size, in MB")
	fs.IntVar(&o.Grown, "grown", 0, "sessions grown to between 64 KB and 1 MB")
	fs.IntVar(&o.Marked, "marked", 20, "sessions whose later turn carries the markers")
	fs.StringVar(&o.Testdata, "testdata", "testdata", "the recordings to copy (the repository's testdata/)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() > 0 {
		return errors.New("usage: paddock-corpus -o DIR [-sessions N] [-seed S] [-days D] [-big N] [-big-mb MB] [-grown N] [-marked N]")
	}
	if o.Big == 0 {
		o.Big = -1 // none
	}
	o.BigSize = *bigMB << 20
	dir, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty: the corpus goes into a new or empty directory", dir)
	}
	if _, err := os.Stat(filepath.Join(o.Testdata, "README.md")); err != nil {
		return fmt.Errorf("no recordings at %s (run from the repository, or give -testdata)", o.Testdata)
	}
	start := time.Now()
	c, rep, err := corpus.Generate(dir, o)
	if err != nil {
		return err
	}
	if err := c.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d sessions, %.2f GB, in %s to %s\n", o.Sessions, float64(rep.Bytes)/(1<<30), time.Since(start).Round(time.Second), dir)
	for _, rt := range corpus.Runtimes() {
		fmt.Fprintf(stdout, "  %-9s %6d sessions  %8.1f MB\n", rt, rep.Counts[rt], float64(rep.Sizes[rt])/(1<<20))
	}
	fmt.Fprintf(stdout, "grown: %d to %d MB, %d to 64 KB–1 MB\n", len(rep.Big), *bigMB, rep.Grown)
	fmt.Fprintf(stdout, "markers: %q and the phrase %q, in a later turn of %d sessions\n", corpus.Marker, corpus.Phrase, len(rep.Marked))
	for _, p := range slices.Sorted(slices.Values(rep.Marked)) {
		fmt.Fprintln(stdout, "   ", p)
	}
	fmt.Fprintf(stdout, "try it: HOME=%s bin/paddock serve --data-dir %s/paddock-data\n", dir, dir)
	return nil
}
