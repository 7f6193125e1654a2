package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
)

// owner is the OS user the server runs as. PostgreSQL refuses to run as
// root, so as root the helper runs initdb, pg_ctl and the watchdog as the
// "postgres" user (created by the Debian package); otherwise as the
// current user.
type owner struct {
	cred     *syscall.Credential // nil: the current user
	uid, gid int
}

func serverOwner() (owner, error) {
	if os.Geteuid() != 0 {
		return owner{uid: os.Geteuid(), gid: os.Getegid()}, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return owner{}, fmt.Errorf("pgtest: running as root needs a \"postgres\" OS user to run the server as "+
			"(apt-get install postgresql creates it; or useradd --system postgres): %w", err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return owner{}, fmt.Errorf("pgtest: postgres user has a non-numeric uid %q or gid %q", u.Uid, u.Gid)
	}
	return owner{cred: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, uid: uid, gid: gid}, nil
}

// command returns cmd set up to run as the owner in dir.
func (o owner) command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir // the server user may not be allowed into the test's working directory
	cmd.Env = append(os.Environ(), "LC_ALL=C", "PGTZ=UTC")
	if o.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: o.cred}
	}
	return cmd
}

// chown gives path to the owner (a no-op when not root).
func (o owner) chown(path string) error {
	if o.cred == nil {
		return nil
	}
	return os.Chown(path, o.uid, o.gid)
}
