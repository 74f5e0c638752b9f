#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the test suite, from Debian's `postgresql` package.
#   postgres-test-cluster.sh start DIR PORT   → prints the URL of database "detectd" (role detectd, may create databases)
#   postgres-test-cluster.sh stop DIR
# Used by .ci/run and, when DETECTD_TEST_DATABASE_URL is not set, by test/support/postgres.ts.
set -euo pipefail
command=${1:?start|stop} dir=${2:?cluster folder}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ]; then
  echo "PostgreSQL server binaries not found under /usr/lib/postgresql: apt-get install postgresql" >&2
  exit 1
fi
# initdb and the server refuse to run as root: run them as the package's postgres user then.
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case $command in
start)
  port=${3:?port}
  mkdir -p "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
  as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-instructions >"$dir/initdb.log"
  # Durability off: this cluster lives for one test run.
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -h 127.0.0.1 -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null
  as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -q \
    -c "create role detectd login createdb password 'detectd'" -c "create database detectd owner detectd"
  echo "postgres://detectd:detectd@127.0.0.1:$port/detectd"
  ;;
stop)
  if [ -d "$dir/data" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null || true; fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start DIR PORT | stop DIR" >&2
  exit 2
  ;;
esac
