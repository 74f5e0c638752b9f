#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the test suite, from Debian's `postgresql` package.
#   postgres-test-cluster.sh start DIR PORT   → prints the URL of database "detectd" (role detectd, may create databases)
#   postgres-test-cluster.sh start DIR PORT bare CERT_DIR
#                                             → a cluster with no role or database of detectd's, over TLS with
#                                               CERT_DIR/server.crt and server.key, listening on localhost; prints the
#                                               superuser's URL (for docs/operations.md's PostgreSQL steps)
#   postgres-test-cluster.sh crash DIR        → stops the server at once, as a crash would (no shutdown checkpoint, clients cut off)
#   postgres-test-cluster.sh resume DIR PORT  → starts that server again on its data (crash recovery first)
#   postgres-test-cluster.sh stop DIR
# Used by .ci/run and, when DETECTD_TEST_DATABASE_URL is not set, by test/support/postgres.ts; the bare one by
# test/pasted-commands.test.ts; crash and resume by test/storage-faults.test.ts.
set -euo pipefail
command=${1:?start|stop} dir=${2:?cluster folder}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ]; then
  echo "PostgreSQL server binaries not found under /usr/lib/postgresql: apt-get install postgresql" >&2
  exit 1
fi
# initdb and the server refuse to run as root: run them as the package's postgres user then.
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
# Durability off, as this cluster lives for one test run, but for each commit's WAL write: `crash` checks
# that every acknowledged write survives an immediate stop, which loses commits still in the server's WAL
# buffers under synchronous_commit=off. fsync stays off: an immediate stop keeps what the OS has cached.
serve() { # DIR PORT LISTEN [server options]
  local dir=$1 port=$2 listen=$3
  shift 3
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -h $listen -k $dir -c fsync=off -c full_page_writes=off -c max_connections=200 $*" start >/dev/null
}

case $command in
start)
  port=${3:?port} kind=${4:-} certs=${5:-}
  mkdir -p "$dir"
  listen=127.0.0.1 tls=()
  if [ "$kind" = bare ]; then
    # The server's key must be the server user's own, readable by it alone.
    install -m 0600 "${certs:?certificate folder}/server.key" "$dir/server.key"
    install -m 0644 "$certs/server.crt" "$dir/server.crt"
    listen=localhost tls=(-c ssl=on -c "ssl_cert_file=$dir/server.crt" -c "ssl_key_file=$dir/server.key")
  fi
  if [ "$(id -u)" = 0 ]; then chown -R postgres "$dir"; fi
  as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-instructions >"$dir/initdb.log"
  serve "$dir" "$port" "$listen" "${tls[@]}"
  if [ "$kind" = bare ]; then
    echo "postgres://postgres@localhost:$port/postgres"
  else
    as_owner "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -q \
      -c "create role detectd login createdb password 'detectd'" -c "create database detectd owner detectd"
    echo "postgres://detectd:detectd@127.0.0.1:$port/detectd"
  fi
  ;;
crash)
  as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null
  ;;
resume)
  serve "$dir" "${3:?port}" 127.0.0.1
  ;;
stop)
  if [ -d "$dir/data" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null || true; fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start DIR PORT | crash DIR | resume DIR PORT | stop DIR" >&2
  exit 2
  ;;
esac
