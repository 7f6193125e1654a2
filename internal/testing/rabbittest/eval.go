package rabbittest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Eval evaluates an Erlang expression (ending in a dot) on the broker's
// node and returns what it printed. It uses erl_call (erlang-base), which
// joins the node in tens of milliseconds, where rabbitmqctl boots an
// Erlang VM for each command: 4-8s at a load average of 12 on two cores,
// longer than a ConnectTimeout when a test's BeforeConnect rotates a
// password. erl_call gives up on a node that does not answer at once
// (one just thawed from SIGSTOP, at load 8): after three tries, or
// without erl_call, rabbitmqctl eval does it, as slowly as before.
func (b *Broker) Eval(expr string) (string, error) {
	call, err := exec.LookPath("erl_call")
	if err != nil {
		return b.ctl("eval", expr)
	}
	for range 3 {
		var out string
		if out, err = b.erlCall(call, expr); err == nil {
			return out, nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	out, ctlErr := b.ctl("eval", expr)
	if ctlErr != nil {
		return out, errors.Join(err, ctlErr)
	}
	return out, nil
}

func (b *Broker) erlCall(call, expr string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), CtlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, call, "-sname", b.node, "-e") // the cookie is in the node's HOME, as b.env says
	cmd.Dir, cmd.Env = b.dir, b.env()
	cmd.Stdin = strings.NewReader(expr + "\n")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("rabbittest: erl_call: %w\n%s", err, out.String())
	}
	return out.String(), nil
}

// SetPassword changes user's password, as rabbitmqctl change_password
// does, through Eval: fast enough for a BeforeConnect.
func (b *Broker) SetPassword(user, password string) error {
	return b.evalOK(fmt.Sprintf("rabbit_auth_backend_internal:change_password(%s, %s, %s).", binary(user), binary(password), actor))
}

// binary is s as an Erlang binary of its bytes: no quoting to get wrong.
func binary(s string) string {
	parts := make([]string, len(s))
	for i := range len(s) {
		parts[i] = strconv.Itoa(int(s[i]))
	}
	return "list_to_binary([" + strings.Join(parts, ",") + "])"
}

// AddUser creates user with password, as rabbitmqctl add_user does,
// through Eval; allowed gives it every permission on vhost "/". It fails
// t at once on an error and deletes the user when t ends.
func (b *Broker) AddUser(t testing.TB, user, password string, allowed bool) {
	t.Helper()
	if err := b.evalOK(fmt.Sprintf("rabbit_auth_backend_internal:add_user(%s, %s, %s).", binary(user), binary(password), actor)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.evalOK(fmt.Sprintf("rabbit_auth_backend_internal:delete_user(%s, %s).", binary(user), actor)); err != nil {
			t.Error(err)
		}
	})
	if !allowed {
		return
	}
	all := binary(".*")
	if err := b.evalOK(fmt.Sprintf("rabbit_auth_backend_internal:set_permissions(%s, %s, %s, %s, %s, %s).", binary(user), binary("/"), all, all, all, actor)); err != nil {
		t.Fatal(err)
	}
}

// SetUserLimits sets user's limits from a JSON object, as rabbitmqctl
// set_user_limits does, through Eval.
func (b *Broker) SetUserLimits(user, definition string) error {
	return b.evalOK(fmt.Sprintf("rabbit_auth_backend_internal:set_user_limits(%s, %s, %s).", binary(user), binary(definition), actor))
}

// ClearUserLimits clears every limit of user, through Eval.
func (b *Broker) ClearUserLimits(user string) error {
	return b.evalOK(fmt.Sprintf("rabbit_auth_backend_internal:clear_user_limits(%s, <<\"all\">>, %s).", binary(user), actor))
}

// CloseAllConnections closes every client connection of the broker with
// reason, as rabbitmqctl close_all_connections does, through Eval.
func (b *Broker) CloseAllConnections(reason string) error {
	return b.evalOK(fmt.Sprintf("rabbit_networking:close_all_connections(%s).", binary(reason)))
}

// actor is who the broker's own records say made a change.
const actor = `<<"rabbittest">>`

// evalOK evaluates expr and fails unless it returned ok.
func (b *Broker) evalOK(expr string) error {
	out, err := b.Eval(expr)
	if err != nil {
		return err
	}
	if got := strings.TrimSpace(out); got != "ok" && got != "{ok, ok}" {
		return fmt.Errorf("rabbittest: %s: %s", strings.SplitN(expr, "(", 2)[0], got)
	}
	return nil
}
