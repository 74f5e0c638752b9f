#!/bin/sh
# Entry point of postgres.Containerfile: as root, hands the data folder to the postgres user and runs again
# as it; the first time, creates the cluster with superuser POSTGRES_USER (password POSTGRES_PASSWORD,
# required from other hosts) and the database POSTGRES_DB; then runs the command (postgres).
set -eu
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /run/postgresql
  chown postgres:postgres "$PGDATA" /run/postgresql
  chmod 0700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
  user=${POSTGRES_USER:-postgres}
  password_file=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$password_file"
  initdb -D "$PGDATA" -U "$user" --pwfile="$password_file" -E UTF8 --auth-local=trust --auth-host=scram-sha-256 --no-instructions
  rm -f "$password_file"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  echo "CREATE DATABASE \"${POSTGRES_DB:-$user}\"" | postgres --single -D "$PGDATA" postgres >/dev/null
fi
exec "$@"
