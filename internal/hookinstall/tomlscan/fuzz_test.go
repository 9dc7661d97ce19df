package tomlscan

import "testing"

// FuzzScan: the scanner never panics, and its statements tile the
// document.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"a = 1\n", "[[hooks]]\nevent = \"Stop\"\ncommand = \"/x/paddock hook --runtime kimi Stop\"\n",
		"notify = [\"/x\"]\n[t]\n", "s = \"\"\"\nx\"\"\"\n", "arr = [\n1,\n]\n", "# c\n\n", "a = { b = [ 'c' ] }",
		"# >>> paddock hooks >>>\n[[hooks]]\ncommand = \"/p/paddock hook --runtime kimi X\"\n# <<< paddock hooks <<<\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		stmts, err := Scan(src)
		if err != nil {
			return
		}
		end := 0
		for _, s := range stmts {
			if s.Start != end || s.End < s.Start {
				t.Fatalf("statements do not tile the document at line %d", s.Line)
			}
			end = s.End
		}
		if end != len(src) {
			t.Fatal("statements do not reach the end")
		}
	})
}
