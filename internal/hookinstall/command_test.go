package hookinstall

import (
	"reflect"
	"strings"
	"testing"
)

func TestRecognisesPaddocksCommands(t *testing.T) {
	o := &Env{binary: "/usr/local/bin/pdk"}
	for cmd, want := range map[string]bool{
		"/usr/local/bin/pdk hook --runtime claude Stop":                   true,
		"/old/paddock hook --runtime claude Stop":                         true,
		"'/a b/paddock' hook --runtime codex --data-dir '/x y' Stop":      true,
		"env A=1 /opt/paddock hook --runtime claude Stop":                 true,
		`"/Users/me/Application Support/paddock" hook --runtime pi x`:     true,
		"/usr/bin/other hook --runtime claude Stop":                       false,
		"/opt/paddock/bin/paddock serve":                                  false,
		"echo paddock hook":                                               false,
		"/usr/local/bin/pdk hook claude":                                  false,
		"paddock-dev hook --runtime claude Stop":                          true,
		"sh -c 'paddock hook --runtime claude Stop'":                      true, // still runs the relay
		"~/bin/audit.sh; /opt/paddock hook --runtime claude Notification": true,
	} {
		if got := o.IsOurCommand(cmd); got != want {
			t.Errorf("%q: %v, want %v", cmd, got, want)
		}
	}
	if w := shellWords(`a 'b c' "d \"e\"" f\ g`); !reflect.DeepEqual(w, []string{"a", "b c", `d "e"`, "f g"}) {
		t.Errorf("shellWords: %q", w)
	}
	if q := shellQuote("/a b/it's"); q != `'/a b/it'\''s'` {
		t.Errorf("shellQuote: %s", q)
	}
	if !strings.Contains((&Env{binary: "/a b/paddock"}).Command("claude", "Stop"), "'/a b/paddock' hook --runtime claude Stop") {
		t.Error("command does not quote the binary")
	}
}
