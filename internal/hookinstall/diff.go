package hookinstall

import (
	"fmt"
	"strings"
)

// unifiedDiff renders the change from old to new as a unified diff with
// three lines of context. A nil side is an absent file (/dev/null).
func unifiedDiff(path string, old, new []byte, oldExists, newExists bool) string {
	a, b := splitLines(old), splitLines(new)
	oldName, newName := path, path
	if !oldExists {
		oldName = "/dev/null"
	}
	if !newExists {
		newName = "/dev/null"
	}
	ops := diffLines(a, b)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", oldName, newName)
	const ctx = 3
	// group the edit script into hunks
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		start := max(i-ctx, 0)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			// a run of equal lines: does another change follow within 2*ctx?
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(end+ctx, len(ops))
				break
			}
			end = run
		}
		writeHunk(&sb, ops[start:end])
		i = end
	}
	return sb.String()
}

type diffOp struct {
	kind  byte // ' ', '-', '+'
	text  string
	aLine int // 1-based line in old (for '+': the old line it goes before)
	bLine int // 1-based line in new (for '-': the new line it goes before)
}

func writeHunk(sb *strings.Builder, ops []diffOp) {
	aStart, bStart, aN, bN := 0, 0, 0, 0
	for _, op := range ops {
		if op.kind != '+' {
			if aStart == 0 {
				aStart = op.aLine
			}
			aN++
		}
		if op.kind != '-' {
			if bStart == 0 {
				bStart = op.bLine
			}
			bN++
		}
	}
	if aN == 0 {
		aStart = firstLine(ops, true)
	}
	if bN == 0 {
		bStart = firstLine(ops, false)
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(aStart, aN), hunkRange(bStart, bN))
	for _, op := range ops {
		text := op.text
		sb.WriteByte(op.kind)
		if strings.HasSuffix(text, "\n") {
			sb.WriteString(text)
		} else {
			sb.WriteString(text + "\n\\ No newline at end of file\n")
		}
	}
}

// firstLine is the line after which an empty side's hunk sits (0: the start).
func firstLine(ops []diffOp, old bool) int {
	for _, op := range ops {
		if old && op.kind == '+' {
			return op.aLine - 1
		}
		if !old && op.kind == '-' {
			return op.bLine - 1
		}
	}
	return 0
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines keeps each line's newline, so a missing final newline shows.
func splitLines(b []byte) []string {
	var out []string
	s := string(b)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// diffLines is a line edit script: common prefix and suffix, then a longest
// common subsequence of the middle (paddock's edits are small and local, so
// the middle is short; a huge middle degrades to delete-all/insert-all).
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	ai, bi := 0, 0
	eq := func() {
		ops = append(ops, diffOp{kind: ' ', text: a[ai], aLine: ai + 1, bLine: bi + 1})
		ai++
		bi++
	}
	del := func() {
		ops = append(ops, diffOp{kind: '-', text: a[ai], aLine: ai + 1, bLine: bi + 1})
		ai++
	}
	ins := func() {
		ops = append(ops, diffOp{kind: '+', text: b[bi], aLine: ai + 1, bLine: bi + 1})
		bi++
	}
	for range pre {
		eq()
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > 4_000_000 {
		for range ma {
			del()
		}
		for range mb {
			ins()
		}
	} else {
		// lcs[i][j] = LCS length of ma[i:], mb[j:]
		lcs := make([][]int32, len(ma)+1)
		for i := range lcs {
			lcs[i] = make([]int32, len(mb)+1)
		}
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if ma[i] == mb[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
				eq()
				i++
				j++
			case i < len(ma) && (j == len(mb) || lcs[i+1][j] >= lcs[i][j+1]):
				del()
				i++
			default:
				ins()
				j++
			}
		}
	}
	for range suf {
		eq()
	}
	return ops
}
