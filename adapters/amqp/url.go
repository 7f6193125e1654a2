package amqp

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/redial-go/redial/internal/opterr"
	"github.com/redial-go/redial/internal/redact"
)

// publicQuery are the query keys of an AMQP URI (RabbitMQ's URI spec):
// file paths and settings, no secrets.
var publicQuery = []string{"auth_mechanism", "cacertfile", "certfile", "keyfile", "server_name_indication", "channel_max", "connection_timeout", "heartbeat", "frame_max"}

// target is one checked endpoint URL.
type target struct {
	raw     string
	parsed  *url.URL // never changed: clone it to change it
	shown   string   // safe to show: the Name, errors, logs, probes
	secrets redact.Target
}

// parseTarget checks raw, the option field: an amqp:// or amqps:// URL
// that amqp091 can dial. Its errors show the URL only redacted, and one
// that does not parse not at all.
func parseTarget(field, raw string) (target, error) {
	if raw == "" {
		return target{}, opterr.New(pkg, field, nil, "empty (want amqp://user:password@host:5672/vhost)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL itself
		}
		return target{}, opterr.New(pkg, field, nil, "malformed: %s (escape '?', '#', '/' and '@' in a password)", redact.Text(err.Error()))
	}
	tg := redact.URL(u, publicQuery...)
	shown := tg.Shown()
	problem := ""
	switch {
	case u.Scheme != "amqp" && u.Scheme != "amqps":
		problem = fmt.Sprintf("scheme %q is not amqp or amqps", u.Scheme)
	case u.Host == "":
		problem = "no host"
	case strings.HasSuffix(u.Host, ":"):
		problem = "empty port (escape '?', '#', '/' and '@' in a password)"
	case u.Query().Has("heartbeat"):
		problem = "heartbeat in the query: set Options.Heartbeat instead"
	}
	if problem == "" {
		if _, err := amqp091.ParseURI(raw); err != nil {
			problem = tg.Text(err.Error())
		}
	}
	if problem != "" {
		return target{}, opterr.New(pkg, field, shown, "%s", problem)
	}
	return target{raw: raw, parsed: u, shown: shown, secrets: tg}, nil
}

// parseTargets parses url and the Replicas, in that order: the endpoints.
func parseTargets(raw string, replicas []string) ([]target, error) {
	t, err := parseTarget("url", raw)
	if err != nil {
		return nil, err
	}
	ts := []target{t}
	for i, r := range replicas {
		t, err := parseTarget("Replicas["+strconv.Itoa(i)+"]", r)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}
