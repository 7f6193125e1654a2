package apicheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVocabulary holds DESIGN v3's table on the committed API (which
// TestAPI holds to the code): one concept, one name and type everywhere.
func TestVocabulary(t *testing.T) {
	root, err := moduleRoot()
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(apiFile)))
	require.NoError(t, err)
	for _, p := range vocabulary(string(b)) {
		t.Error(p)
	}
}

var (
	fieldLine  = regexp.MustCompile(`^pkg (\S+), type (\w+) struct, (\w+) (.+)$`)
	newLine    = regexp.MustCompile(`^pkg (adapters/\S+), func New\w*\(.*\) \((\S+), error\)$`)
	methodLine = regexp.MustCompile(`^pkg (adapters/\S+), method \((\*?\w+)\) (\w+)\(`)
)

// lifecycle is what an adapter's own type offers of its supervisor: the
// one shape (DESIGN v2).
var lifecycle = []string{"Run", "Status", "Subscribe", "Done", "Err", "Name", "History", "RetryNow"}

// owned are the methods by which an adapter's own type hands out its
// connection, each written by the adapter to keep its rules (a Conn's
// turn, a Pool's dial gate): any other Conn, Do, Connections, Invalidate
// or ReportSuccess on an adapter's type is a path around it (DESIGN v4).
var owned = map[string]bool{
	"adapters/postgres.*Conn.Do": true, "adapters/postgres.*Conn.Connections": true,
	"adapters/postgres.*Conn.Invalidate": true, "adapters/postgres.*Pool.Do": true,
}

// vocabulary returns the departures from the table in the listing api.
func vocabulary(api string) []string {
	types := map[string]string{ // field: its one type
		"TLS": "*tls.Config", "ReadLimit": "int64",
		"PingInterval": "time.Duration", "PingTimeout": "time.Duration", "IdleTimeout": "time.Duration",
		"Classify": "func(error) error",
	}
	retired := []string{"TLSConfig", "MaxEventSize", "HeartbeatInterval", "HeartbeatTimeout", "DisableHeartbeat"}
	var bad []string
	adapters, classify, methods := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var news [][]string
	for _, l := range strings.Split(api, "\n") {
		if m := fieldLine.FindStringSubmatch(l); m != nil {
			if want, ok := types[m[3]]; ok && m[4] != want {
				bad = append(bad, l+": want "+want)
			}
			for _, r := range retired {
				if m[3] == r {
					bad = append(bad, l+": a retired name")
				}
			}
			if strings.HasPrefix(m[1], "adapters/") && strings.Contains(m[4], "supervisor.Supervisor[") {
				bad = append(bad, l+": a path around the adapter (its supervisor, reachable)")
			}
		}
		if pkg, ok := strings.CutPrefix(l, "pkg adapters/"); ok {
			pkg = "adapters/" + pkg[:strings.Index(pkg, ",")]
			adapters[pkg] = true
			if l == "pkg "+pkg+", func Classify(error) error" {
				classify[pkg] = true
			}
		}
		if m := newLine.FindStringSubmatch(l); m != nil {
			news = append(news, m)
		}
		if m := methodLine.FindStringSubmatch(l); m != nil {
			methods[m[1]+"."+m[2]+"."+m[3]] = true
			switch m[3] {
			case "Conn", "Do", "Connections", "Invalidate", "ReportSuccess":
				if !owned[m[1]+"."+m[2]+"."+m[3]] {
					bad = append(bad, l+": a path around the adapter")
				}
			}
		}
	}
	for pkg := range adapters {
		if !classify[pkg] {
			bad = append(bad, pkg+": no Classify(error) error")
		}
	}
	for _, m := range news {
		if strings.HasPrefix(m[2], "*supervisor.Supervisor[") {
			continue
		}
		for _, name := range lifecycle {
			if !methods[m[1]+"."+m[2]+"."+name] {
				bad = append(bad, m[0]+": its "+m[2]+" has no "+name)
			}
		}
	}
	return bad
}

// The rules find what they are for.
func TestVocabularyFindsDepartures(t *testing.T) {
	api := strings.Join([]string{
		"pkg adapters/a, func Classify(error) error",
		"pkg adapters/a, func New(string, Options) (*Client, error)",
		"pkg adapters/a, type Options struct, TLSConfig *tls.Config",
		"pkg adapters/a, type Options struct, ReadLimit int",
		"pkg adapters/b, func New(string, Options) (*Client, error)",
		"pkg adapters/b, type Client struct, embedded *supervisor.Supervisor[*b.Conn]",
		"pkg adapters/b, type Options struct, TLS *tls.Config",
		"pkg adapters/c, func Classify(error) error",
		"pkg adapters/c, func New(string, Options) (*supervisor.Supervisor[*c.Conn], error)",
		"pkg adapters/postgres, func Classify(error) error",
		"pkg adapters/postgres, func NewPool(string, PoolOptions) (*Pool, error)",
		"pkg adapters/postgres, method (*Pool) Conn(context.Context) (*pgxpool.Pool, error)",
		"pkg adapters/postgres, method (*Pool) Do(context.Context, func(context.Context, *pgxpool.Conn) error) error",
	}, "\n")
	for _, m := range lifecycle {
		api += "\npkg adapters/postgres, method (*Pool) " + m + "()"
		if m != "History" {
			api += "\npkg adapters/a, method (*Client) " + m + "()"
		}
	}
	assert.ElementsMatch(t, []string{
		"pkg adapters/a, type Options struct, TLSConfig *tls.Config: a retired name",
		"pkg adapters/a, type Options struct, ReadLimit int: want int64",
		"adapters/b: no Classify(error) error",
		"pkg adapters/a, func New(string, Options) (*Client, error): its *Client has no History",
		"pkg adapters/b, type Client struct, embedded *supervisor.Supervisor[*b.Conn]: a path around the adapter (its supervisor, reachable)",
		"pkg adapters/postgres, method (*Pool) Conn(context.Context) (*pgxpool.Pool, error): a path around the adapter",
	}, filterB(vocabulary(api)))
}

// filterB drops b's missing lifecycle methods, which the case above does
// not list: b is there for its embedded supervisor.
func filterB(bad []string) []string {
	var out []string
	for _, b := range bad {
		if !strings.HasPrefix(b, "pkg adapters/b, func New") {
			out = append(out, b)
		}
	}
	return out
}
