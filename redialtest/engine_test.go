package redialtest

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunPatternMatchesOneTest(t *testing.T) {
	assert.Equal(t, `^TestConformance$/^Conn$/^panic-connect$`, runPattern("TestConformance/Conn/panic-connect"))
	assert.Equal(t, `^TestX$/^a\.b\+c$`, runPattern("TestX/a.b+c"))
}

func TestSummaryKeepsWhyAChildFailed(t *testing.T) {
	out := "=== RUN   TestX\npanic: redialtest: a panic in connect\n\ngoroutine 7 [running]:\nmain.go:3 +0x1\n"
	assert.Equal(t, "panic: redialtest: a panic in connect", summary(out))
	out = "=== RUN   TestX/stall\n    case_faults.go:84: found after 3s\n    case_faults.go:87: found after 3s, later than Liveness 1s says\n"
	assert.Equal(t, "case_faults.go:84: found after 3s case_faults.go:87: found after 3s, later than Liveness 1s says", summary(out))
	assert.Contains(t, summary("exit status 2\n"), "exited non-zero")
}

// A secret is found in every form a transport derives from it, and a
// check names where it was shown.
func TestShownFindsEveryForm(t *testing.T) {
	s := NewSecrets()
	tok := s.Token()
	u, err := url.Parse(s.URL("ws", "h:1", "/x"))
	require.NoError(t, err)
	pw, _ := u.User.Password()
	require.Equal(t, s.Password, pw)
	assert.Equal(t, s.Query, u.Query().Get(QueryKey))
	for _, f := range s.forms() {
		rec := &recorder{TB: t}
		var sh shown
		sh.err("Status.Err", fmt.Errorf("lost: %w", errors.New("server said "+f.text)))
		sh.check(rec, s)
		msg, failed := rec.result()
		assert.True(t, failed, "the %s (%s) went unseen", f.secret, f.name)
		assert.Contains(t, msg, "Status.Err")
	}
	assert.Contains(t, strings.Join(reachableStrings(struct{ e error }{fmt.Errorf("x: %w", errors.New(tok))}), " "), tok,
		"reflection reaches a wrapped error's text")
}

func TestCheckBadWantsErrInvalidOptions(t *testing.T) {
	rec := &recorder{TB: t}
	checkBad(rec, "rpc", "", `rpc: Handlers["M"]: nil func`, errors.New(`rpc: Handlers["M"]: nil func`))
	msg, failed := rec.result()
	assert.True(t, failed, "an error that does not wrap ErrInvalidOptions passed")
	assert.Contains(t, msg, "does not wrap")
}

func TestEveryCaseIsNamedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range Cases() {
		assert.False(t, seen[name], "%s twice", name)
		seen[name] = true
	}
	assert.Len(t, seen, len(cases))
}
