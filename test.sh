#!/usr/bin/env bash
# Runs every test of the repository, as CI does (.ci/run calls it).
#
# First it installs with apt-get what the tests need and this machine lacks:
# PostgreSQL's server binaries (adapters/postgres), Chromium (the status
# page's browser test) and RabbitMQ (adapters/amqp). Services are not
# started: every test package starts its own servers on 127.0.0.1. It runs
# as root, or as a user who may sudo. Then, in every Go module of the
# repository (the library and e2e; not those under testdata), it
# runs go vet, go test -race -count=1 (more arguments go to go test) and
# staticcheck, and fails at the end if any module failed.
#
#	./test.sh            # install what is missing, then test everything
#	./test.sh -short     # the same, with go test -short
#	./test.sh -install   # only install what is missing
#
# TEST_SH_PG, TEST_SH_CHROMIUM, TEST_SH_RABBITMQ and TEST_SH_POLICY override
# the paths it checks and writes, TEST_SH_LOCK_PAUSE the seconds between two
# tries of apt-get while a lock is held (its test, e2e/readme, uses
# them).
set -euo pipefail
cd "$(dirname "$0")"

# staticcheck 2026.2.2: the module proxy knows its releases by their
# semantic versions only. go run of a version leaves go.mod as it is.
staticcheck=honnef.co/go/tools/cmd/staticcheck@v0.8.2

install_only=false
if [ "${1-}" = -install ]; then
	install_only=true
	shift
fi

# apt_get runs apt-get as root, waiting up to 10 minutes for a lock that
# another apt-get or dpkg holds (unattended upgrades on a fresh VM):
# DPkg::Lock::Timeout waits for dpkg's lock; apt-get update (apt 2.6)
# exits 100 at once on the lists lock, so a lock refusal is tried again.
lock_wait=600
apt_get() {
	local err status told=false deadline=$((SECONDS + lock_wait))
	err=$(mktemp)
	while :; do
		status=0
		"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get -o DPkg::Lock::Timeout=$lock_wait "$@" 2>"$err" || status=$?
		if [ $status -eq 0 ] || ! grep -q 'Could not get lock' "$err" || [ $SECONDS -ge $deadline ]; then
			cat "$err" >&2
			rm -f "$err"
			return $status
		fi
		$told || echo "test.sh: another apt-get or dpkg holds a lock; waiting up to ${lock_wait}s" >&2
		told=true
		sleep "${TEST_SH_LOCK_PAUSE:-5}"
	done
}

missing=()
compgen -G "${TEST_SH_PG:-/usr/lib/postgresql/*/bin/initdb}" >/dev/null || missing+=(postgresql)
[ -x "${TEST_SH_CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
[ -x "${TEST_SH_RABBITMQ:-/usr/sbin/rabbitmq-server}" ] || missing+=(rabbitmq-server)
if [ ${#missing[@]} -gt 0 ]; then
	as_root=()
	[ "$(id -u)" -eq 0 ] || as_root=(sudo)
	echo "test.sh: installing ${missing[*]} with apt-get"
	# Debian starts a package's service when it installs it; a policy-rc.d
	# that exits 101 keeps PostgreSQL and RabbitMQ from starting.
	policy=${TEST_SH_POLICY:-/usr/sbin/policy-rc.d}
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
		"${as_root[@]}" chmod +x "$policy"
		trap '"${as_root[@]}" rm -f "$policy"' EXIT
	fi
	apt_get update -qq
	apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if $install_only; then
	exit 0
fi

go version
failed=()
for mod in $(git ls-files go.mod '*/go.mod' | grep -v '/testdata/' | xargs -n1 dirname | sort -u); do
	echo "test.sh: module ${mod}"
	# -timeout: go test's default 10 minutes per package binary is near what
	# adapters/amqp takes at load 15 (400s: broker boots, rabbitmqctl VMs).
	(cd "$mod" && go vet ./... && go test -race -count=1 -timeout=30m "$@" ./...) || failed+=("$mod")
	(cd "$mod" && go run "$staticcheck" ./...) || failed+=("$mod (staticcheck)")
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "test.sh: FAIL in ${failed[*]}" >&2
	exit 1
fi
echo "test.sh: ok"
