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
	fieldLine = regexp.MustCompile(`^pkg (\S+), type (\w+) struct, (\w+) (.+)$`)
	newLine   = regexp.MustCompile(`^pkg (adapters/\S+), func New\w*\(.*\) \((\S+), error\)$`)
)

// vocabulary returns the departures from the table in the listing api.
func vocabulary(api string) []string {
	types := map[string]string{ // field: its one type
		"TLS": "*tls.Config", "ReadLimit": "int64",
		"PingInterval": "time.Duration", "PingTimeout": "time.Duration", "IdleTimeout": "time.Duration",
		"Classify": "func(error) error",
	}
	retired := []string{"TLSConfig", "MaxEventSize", "HeartbeatInterval", "HeartbeatTimeout", "DisableHeartbeat"}
	var bad []string
	adapters, classify, embeds := map[string]bool{}, map[string]bool{}, map[string]bool{}
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
			if m[3] == "embedded" && strings.HasPrefix(m[4], "*supervisor.Supervisor[") {
				embeds[m[1]+".*"+m[2]] = true
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
	}
	for pkg := range adapters {
		if !classify[pkg] {
			bad = append(bad, pkg+": no Classify(error) error")
		}
	}
	for _, m := range news {
		if !strings.HasPrefix(m[2], "*supervisor.Supervisor[") && !embeds[m[1]+"."+m[2]] {
			bad = append(bad, m[0]+": neither a *supervisor.Supervisor nor a type that embeds one")
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
	}, "\n")
	assert.ElementsMatch(t, []string{
		"pkg adapters/a, type Options struct, TLSConfig *tls.Config: a retired name",
		"pkg adapters/a, type Options struct, ReadLimit int: want int64",
		"adapters/b: no Classify(error) error",
		"pkg adapters/a, func New(string, Options) (*Client, error): neither a *supervisor.Supervisor nor a type that embeds one",
	}, vocabulary(api))
}
