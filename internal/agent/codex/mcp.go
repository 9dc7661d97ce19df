package codex

import (
	"fmt"
	"strings"

	"paddock/internal/hookinstall"
	"paddock/internal/hookinstall/tomlscan"
)

// Codex's MCP servers are [mcp_servers.NAME] tables in config.toml, as
// `codex mcp add` writes them: command and args. paddock's table sits at
// the end of the file between two marker comments and is removed with
// them; it is recognised by its command either way.

const (
	mcpBegin = "# >>> paddock mcp: added by `paddock hooks install --mcp`, removed by `paddock hooks uninstall` >>>"
	mcpEnd   = "# <<< paddock mcp <<<"
)

// mcpTable is paddock's [mcp_servers.paddock] table.
type mcpTable struct {
	argv []string
	ours func([]string) bool
}

var mcpTableName = "mcp_servers." + hookinstall.MCPName

func (m *mcpTable) region() string {
	q := make([]string, len(m.argv)-1)
	for i, a := range m.argv[1:] {
		q[i] = tomlscan.Quote(a)
	}
	return mcpBegin + "\n[" + mcpTableName + "]\ncommand = " + tomlscan.Quote(m.argv[0]) + "\nargs = [" + strings.Join(q, ", ") + "]\n" + mcpEnd + "\n"
}

// found is the table in a config: its bytes (with its marker comments when
// they are right around it) and its command line.
type found struct {
	from, to int
	argv     []string
}

func (m *mcpTable) find(src []byte) (*found, error) {
	stmts, err := tomlscan.Scan(src)
	if err != nil {
		return nil, err
	}
	var f *found
	in := false // inside the table or one of its subtables
	for i, st := range stmts {
		switch st.Kind {
		case tomlscan.Header, tomlscan.ArrayHeader:
			mine := st.Key == mcpTableName || strings.HasPrefix(st.Key, mcpTableName+".")
			if mine && f != nil && !in {
				return nil, fmt.Errorf("line %d: [%s] is split over the file; paddock cannot edit it", st.Line, st.Key)
			}
			in = mine
			if mine && f == nil {
				f = &found{from: st.Start, to: st.End}
				if i > 0 && stmts[i-1].Kind == tomlscan.Comment && strings.HasPrefix(strings.TrimSpace(string(src[stmts[i-1].Start:stmts[i-1].End])), "# >>> paddock mcp") {
					f.from = stmts[i-1].Start
				}
			}
		case tomlscan.KeyValue:
			if st.Table == "" && (st.Key == mcpTableName || strings.HasPrefix(st.Key, mcpTableName+".")) ||
				st.Table == "mcp_servers" && (st.Key == hookinstall.MCPName || strings.HasPrefix(st.Key, hookinstall.MCPName+".")) {
				return nil, fmt.Errorf("line %d: the %s MCP server is set as keys, not as a [%s] table; paddock cannot edit it", st.Line, hookinstall.MCPName, mcpTableName)
			}
			if !in {
				continue
			}
			f.to = st.End
			raw := src[st.ValStart:st.ValEnd]
			switch {
			case st.Table == mcpTableName && st.Key == "command":
				if v, ok := tomlscan.Strings(raw); ok && len(v) == 1 {
					f.argv = append(v, f.argv...)
				}
			case st.Table == mcpTableName && st.Key == "args":
				if v, ok := tomlscan.Strings(raw); ok {
					f.argv = append(f.argv, v...)
				}
			}
		case tomlscan.Comment:
			if in && strings.HasPrefix(strings.TrimSpace(string(src[st.Start:st.End])), "# <<< paddock mcp") {
				f.to, in = st.End, false
			}
		}
	}
	return f, nil
}

func (m *mcpTable) edit(src []byte, install bool) (hookinstall.Edit, error) {
	f, err := m.find(src)
	if err != nil {
		return hookinstall.Edit{}, err
	}
	res := hookinstall.Edit{Out: src}
	if f != nil {
		if !m.ours(f.argv) {
			if install {
				res.Notes = append(res.Notes, "config.toml registers an MCP server named "+hookinstall.MCPName+" already, and not this paddock: left as it is")
			}
			return res, nil
		}
		res.Ours = 1
		if install && string(src[f.from:f.to]) == m.region() {
			return res, nil
		}
		from := f.from
		if from > 0 && strings.HasSuffix(string(src[:from]), "\n\n") {
			from-- // the blank line paddock put before it
		}
		src = tomlscan.Remove(src, [][2]int{{from, f.to}})
		res.Out = src
	}
	if install {
		sep := ""
		switch {
		case len(src) == 0:
		case src[len(src)-1] != '\n':
			sep = "\n\n"
		default:
			sep = "\n"
		}
		res.Out = append(append([]byte{}, src...), sep+m.region()...)
	}
	return res, nil
}
