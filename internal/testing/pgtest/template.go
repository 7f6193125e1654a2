package pgtest

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// template is a data directory initdb made once per process and binary
// directory, which every cluster copies: initdb takes seconds (8s on a
// busy 2-core machine), a copy a tenth of one. Its watchdog removes it
// when the test binary exits; it is kept here so that its pipe stays open
// until then.
type template struct {
	dir      string // its data directory is dir/data
	password string // the superuser's, the same in every cluster of the process
	dog      *watchdog
}

var templates struct {
	sync.Mutex
	made map[string]*template // by binary directory
}

// templateFor returns the template of bin, making it on the first call.
func templateFor(bin string, own owner) (*template, error) {
	templates.Lock()
	defer templates.Unlock()
	if t := templates.made[bin]; t != nil {
		return t, nil
	}
	dir, err := os.MkdirTemp("", "pgtest-template-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if err := own.chown(dir); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pgtest: give %s to the server user: %w", dir, err)
	}
	t := &template{dir: dir, password: randomPassword()}
	if t.dog, err = startWatchdog(own, bin, dir); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c := &Cluster{bin: bin, dir: dir, owner: own}
	pwfile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(t.password+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if err := own.chown(pwfile); err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if err := c.run("initdb", "-D", c.dataDir(), "-U", User, "--pwfile="+pwfile, "--auth-local=peer",
		"--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"); err != nil {
		return nil, err
	}
	os.Remove(pwfile)
	if templates.made == nil {
		templates.made = map[string]*template{}
	}
	templates.made[bin] = t
	return t, nil
}

// copyTemplate makes the cluster's data directory a copy of the template's
// (cp -a, as the server's user: modes and owner kept).
func (c *Cluster) copyTemplate() error {
	t, err := templateFor(c.bin, c.owner)
	if err != nil {
		return err
	}
	c.password = t.password
	return c.exec("cp", "-a", filepath.Join(t.dir, "data"), c.dataDir())
}
