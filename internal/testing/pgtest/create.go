package pgtest

import (
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// create copies the template (what initdb made), writes the settings and
// starts the server.
func (c *Cluster) create(o Options) error {
	if err := c.copyTemplate(); err != nil {
		return err
	}
	err := c.prependHBA(o.HBA)
	if err != nil {
		return err
	}
	tls := map[string]string{}
	if o.TLS {
		if c.cert, err = c.writeCert(); err != nil {
			return err
		}
		tls = map[string]string{"ssl": "on", "ssl_cert_file": "'server.crt'", "ssl_key_file": "'server.key'"}
	}
	c.settings = map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
	maps.Copy(c.settings, tls)
	maps.Copy(c.settings, o.Settings)
	return c.listen(o.Port)
}

// listen makes the socket directory, writes the settings and starts the
// server on port, or on a free one (0), trying another when the chosen
// one was taken meanwhile.
func (c *Cluster) listen(port int) error {
	sock := filepath.Join(c.dir, "sock")
	if err := os.Mkdir(sock, 0o700); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if err := c.owner.chown(sock); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	var err error
	for range 5 {
		if c.port = port; c.port == 0 {
			if c.port, err = freePort(); err != nil {
				return err
			}
		}
		if err = c.writeConf(); err != nil {
			return err
		}
		if err = c.start(); err == nil || port != 0 || !strings.Contains(c.Log(), "already in use") {
			return err
		}
	}
	return err
}

// writeConf writes the settings, the port and the socket directory to an
// included file, replacing it.
func (c *Cluster) writeConf() error {
	settings := map[string]string{"listen_addresses": "'" + Host + "'", "port": fmt.Sprint(c.port),
		"unix_socket_directories": "'" + filepath.Join(c.dir, "sock") + "'"}
	maps.Copy(settings, c.settings)
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		fmt.Fprintf(&b, "%s = %s\n", k, settings[k])
	}
	conf := filepath.Join(c.dataDir(), "pgtest.conf")
	if err := os.WriteFile(conf, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if err := c.owner.chown(conf); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	main := filepath.Join(c.dataDir(), "postgresql.conf")
	text, err := os.ReadFile(main)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	if include := "include = 'pgtest.conf'\n"; !strings.Contains(string(text), include) {
		if err := os.WriteFile(main, append(text, include...), 0o600); err != nil {
			return fmt.Errorf("pgtest: %w", err)
		}
	}
	return nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// prependHBA puts lines before the entries initdb wrote in pg_hba.conf.
func (c *Cluster) prependHBA(lines []string) error {
	if len(lines) == 0 {
		return nil
	}
	hba := filepath.Join(c.dataDir(), "pg_hba.conf")
	text, err := os.ReadFile(hba)
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	text = append([]byte(strings.Join(lines, "\n")+"\n"), text...)
	if err := os.WriteFile(hba, text, 0o600); err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	return c.owner.chown(hba)
}
