#!/usr/bin/env bash
# Builds the detectd image and runs the three ways of docs/deployment.md under podman on this machine:
#   1. the image (Dockerfile): healthy by its own HEALTHCHECK, an account and a service from its CLI, a
#      detection of ../shared/eval/photos/dog.jpg, its log saying the jemalloc allocator, and on SIGTERM
#      (podman stop) a drained exit with status 0;
#   2. compose.yaml: two detectd replicas on PostgreSQL behind nginx; detections sent to nginx answered
#      by both replicas (each one's log has calls), both on jemalloc and PostgreSQL;
#   3. deploy/detectd.service: the systemd steps of docs/deployment.md on a Debian machine booted with systemd (a
#      container), the image's /app standing in for the checkout after `npm ci`: the service starts with
#      its model, detects, logs jemalloc, and stops drained (result "success"); with its model file missing,
#      it stops restarting and stays failed.
# Needs root, podman with runc, podman-compose, debootstrap, curl and ../shared (Debian: apt-get install
# podman podman-compose debootstrap runc curl golang-github-containernetworking-plugin-dnsname). The last
# package: Debian 12's podman 4.3 networks containers with CNI, where a container reaches another by its
# name on a compose network (the replicas reach "postgres", nginx "detectd") only through the dnsname
# plugin; without it the compose step fails with getaddrinfo ENOTFOUND postgres. Both are checked before
# anything starts. No registry is needed: the base images are the
# local stand-ins of scripts/container-bases.sh, unless NODE_IMAGE, BUILD_IMAGE, POSTGRES_IMAGE,
# NGINX_IMAGE and SYSTEMD_IMAGE are all set. The images stay for the next run (its builds then come from
# podman's layer cache); containers, networks and volumes are removed, whether the run passes or fails (and
# any left by an interrupted run, before it starts). On a 2-core machine the first run
# (no image at all) took 11 minutes, a later one 1¼–3½, ~5 after a change in src/.
set -euo pipefail
cd "$(dirname "$0")/.."

# What it needs, checked before anything starts.
missing=()
for command in podman podman-compose debootstrap runc curl node; do command -v "$command" >/dev/null || missing+=("$command"); done
[ "${#missing[@]}" = 0 ] || { echo "container-check: not installed: ${missing[*]} (Debian: apt-get install podman podman-compose debootstrap runc curl golang-github-containernetworking-plugin-dnsname; node: Node.js >= 20.19)" >&2; exit 1; }
[ -f ../shared/eval/photos/dog.jpg ] && [ -d ../shared/models ] || { echo "container-check: ../shared (models and photos) is not beside the checkout" >&2; exit 1; }
if [ "$(podman info --format '{{.Host.NetworkBackend}}' 2>/dev/null)" = cni ] \
  && ! ls /usr/lib/cni/dnsname /usr/libexec/cni/dnsname /opt/cni/bin/dnsname >/dev/null 2>&1; then
  echo "container-check: podman networks containers with CNI here, whose compose networks resolve container names only with the dnsname plugin: apt-get install golang-github-containernetworking-plugin-dnsname" >&2
  exit 1
fi

export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/deploy/podman/containers.conf}
# Docker's image format: OCI images have no HEALTHCHECK.
export BUILDAH_FORMAT=docker
models=$(realpath ../shared/models)
photo=$(realpath ../shared/eval/photos/dog.jpg)
image=localhost/detectd:check
container=detectd-check
project=detectd-check
host=detectd-check-systemd

logs=$(mktemp -d /tmp/detectd-container-check.XXXXXX)
step() { printf '\n== %s\n' "$*"; }
# What failed, and the state and last log lines of every container this check started.
fail() {
  local name
  for name in $(podman ps -a --filter "name=^$container" --format '{{.Names}}'); do
    printf -- '-- %s: %s\n' "$name" "$(podman ps -a --filter "name=^$name\$" --format '{{.Status}}')" >&2
    podman logs --tail 8 "$name" 2>&1 | sed 's/^/   /' >&2
  done
  if podman container exists "$host"; then podman exec "$host" journalctl -u detectd --no-pager -n 8 2>&1 | sed 's/^/   /' >&2; fi
  printf 'container-check: FAILED: %s\n' "$*" >&2
  exit 1
}
# Runs a command with its output in $logs/$1.log, shown when it fails.
logged() {
  local name=$1
  shift
  "$@" >"$logs/$name.log" 2>&1 || { tail -n 40 "$logs/$name.log" >&2; fail "$name: $*"; }
}
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
# Polls a command once a second until it succeeds; fails after $1 seconds (a bound for start-up, not a timing).
wait_until() {
  local limit=$1 what=$2
  shift 2
  for ((second = 0; second < limit; second++)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  fail "$what (not within ${limit}s)"
}
compose() { podman-compose -p "$project" -f compose.yaml "$@"; }
replicas() { podman ps --filter "label=com.docker.compose.project=$project" --filter label=com.docker.compose.service=detectd --format '{{.Names}}' | sort; }
# detect_dog URL KEY PHOTO [COMMAND…]: detects PHOTO at URL with curl (run by COMMAND, e.g. podman exec); fails unless a dog is found.
detect_dog() {
  local url=$1 key=$2 file=$3 answer
  shift 3
  answer=$("$@" curl -sS --fail-with-body "$url/api/v1/object-detection" -H "Authorization: ApiKey $key" -F "image=@$file" -F ConfidenceThreshold=0.5) \
    || fail "detection at $url: $answer"
  node -e 'const a = JSON.parse(process.argv[1]); if (!a.detected_objects.some((o) => o.name === "dog")) { console.error(process.argv[1]); process.exit(1); }' "$answer" \
    || fail "no dog detected at $url"
}
# create_key CLI…: creates an account and a service with detectd's CLI (the command that runs it); prints the service's API key.
create_key() {
  "$@" account create --email check@example.com --password 'a long passphrase' >/dev/null
  "$@" service create --account check@example.com --name check --json \
    | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).api_key))'
}
# expect_log CONTAINER PATTERN WHAT (not grep -q: it would stop reading early, and podman logs fail on the closed pipe)
expect_log() { [ "$(podman logs "$1" 2>&1 | grep -c -- "$2")" -gt 0 ] || fail "$1: $3"; }
# Removes every container, network and volume of this check, by name and compose label, without compose.yaml
# (its variables, such as POSTGRES_PASSWORD, are not set before the compose step, and podman-compose refuses
# to read it without them).
cleanup() {
  local leftover
  podman rm -f -i -t 0 "$container" "$host" >/dev/null 2>&1 || true
  for leftover in $(podman ps -a -q --filter "label=com.docker.compose.project=$project" 2>/dev/null); do podman rm -f -i -t 0 "$leftover" >/dev/null 2>&1 || true; done
  podman network rm -f "${project}_default" >/dev/null 2>&1 || true
  for leftover in $(podman volume ls -q --filter "label=com.docker.compose.project=$project" 2>/dev/null) "${project}_postgres-data"; do podman volume rm -f "$leftover" >/dev/null 2>&1 || true; done
}
# Left over from an interrupted or failed run.
cleanup
trap 'cleanup; rm -rf "$logs"' EXIT

step "base images"
if [ -z "${NODE_IMAGE:-}" ] || [ -z "${BUILD_IMAGE:-}" ] || [ -z "${POSTGRES_IMAGE:-}" ] || [ -z "${NGINX_IMAGE:-}" ] || [ -z "${SYSTEMD_IMAGE:-}" ]; then
  logged bases bash scripts/container-bases.sh
  while IFS='=' read -r name value; do export "$name=$value"; done < <(grep -E '^[A-Z_]+=' "$logs/bases.log")
fi
echo "NODE_IMAGE=$NODE_IMAGE BUILD_IMAGE=$BUILD_IMAGE POSTGRES_IMAGE=$POSTGRES_IMAGE NGINX_IMAGE=$NGINX_IMAGE SYSTEMD_IMAGE=$SYSTEMD_IMAGE"

step "build the image"
logged build podman build --build-arg "NODE_IMAGE=$NODE_IMAGE" --build-arg "BUILD_IMAGE=$BUILD_IMAGE" -t "$image" .

step "run the image"
port=$(free_port)
# (podman schedules health checks with systemd timers; without systemd it says so, and they are run here by hand.)
logged run podman run -d --name "$container" -p "127.0.0.1:$port:8080" -v "$models:/models:ro" \
  -e DETECTD_MODEL=/models/yolo26n-640-int8.onnx "$image"
wait_until 120 "the container's HEALTHCHECK passes" podman healthcheck run "$container"
expect_log "$container" '"allocator":"jemalloc"' 'not on jemalloc'
key=$(create_key podman exec "$container" node dist/src/cli.js) || fail "the CLI in the container"
detect_dog "http://127.0.0.1:$port" "$key" "$photo"
logged stop podman stop -t 40 "$container"
[ "$(podman inspect -f '{{.State.ExitCode}}' "$container")" = 0 ] || fail "exit status after SIGTERM: $(podman inspect -f '{{.State.ExitCode}}' "$container")"
expect_log "$container" '"msg":"stopped"' 'did not drain and stop on SIGTERM'
echo "healthy, dog detected, jemalloc, stopped cleanly"

step "compose.yaml: two replicas, PostgreSQL, nginx"
DETECTD_SECRET=$(node -e 'console.log(require("crypto").randomBytes(32).toString("hex"))')
POSTGRES_PASSWORD=$(node -e 'console.log(require("crypto").randomBytes(16).toString("hex"))')
export DETECTD_SECRET POSTGRES_PASSWORD DETECTD_MODELS_HOST_DIR=$models DETECTD_INFERENCE_THREADS=1 DETECTD_PROXY_PORT=$(free_port)
proxy=http://127.0.0.1:$DETECTD_PROXY_PORT
logged compose-up compose up -d
wait_until 180 "nginx answers /readyz from a replica" curl -sf "$proxy/readyz"
mapfile -t names < <(replicas)
[ "${#names[@]}" = 2 ] || fail "replicas running: ${names[*]}"
for name in "${names[@]}"; do
  wait_until 120 "$name's HEALTHCHECK passes" podman healthcheck run "$name"
  expect_log "$name" '"allocator":"jemalloc"' 'not on jemalloc'
  expect_log "$name" '"database":"postgresql"' 'not on PostgreSQL'
done
key=$(create_key podman exec "${names[0]}" node dist/src/cli.js) || fail "the CLI in ${names[0]}"
for ((request = 0; request < 8; request++)); do detect_dog "$proxy" "$key" "$photo"; done
for name in "${names[@]}"; do
  calls=$(podman logs "$name" 2>&1 | grep -c '"path":"/api/v1/object-detection"' || true)
  [ "$calls" -gt 0 ] || fail "$name answered none of the detections sent to nginx"
  echo "$name answered $calls of 8"
done
logged compose-down compose down -v

step "deploy/detectd.service: the systemd steps of docs/deployment.md"
# CAP_SYS_ADMIN: systemd sets up the unit's sandbox (ProtectSystem, PrivateTmp, …) with mount namespaces.
logged systemd-boot podman run -d --name "$host" --systemd=always --cap-add SYS_ADMIN \
  --mount "type=image,source=$image,destination=/mnt/image" -v "$PWD:/checkout:ro" -v "$models:/shared/models:ro" \
  -v "$photo:/dog.jpg:ro" "$SYSTEMD_IMAGE"
wait_until 60 "systemd has booted" podman exec "$host" systemctl is-system-running
# As docs/deployment.md (root here, so without sudo); `cp -r . /opt/detectd && npm ci` becomes the image's
# /app: the same files after npm ci, built for this Node.js.
logged systemd-install podman exec -w /checkout "$host" bash -euxo pipefail -c '
  useradd --system --home-dir /var/lib/detectd --shell /usr/sbin/nologin detectd
  cp -a /mnt/image/app /opt/detectd
  install -D -m 0644 ../shared/models/yolo26n-640-int8.onnx /opt/detectd-models/yolo26n-640-int8.onnx
  install -D -m 0640 -g detectd deploy/detectd.env /etc/detectd/detectd.env
  install -m 0644 deploy/detectd.service /etc/systemd/system/detectd.service
  systemctl daemon-reload && systemctl enable --now detectd'
wait_until 120 "the service answers /readyz" podman exec "$host" curl -sf http://127.0.0.1:8080/readyz
key=$(create_key podman exec "$host" systemd-run --quiet --pipe --wait -p User=detectd -p EnvironmentFile=/etc/detectd/detectd.env \
  -p Environment=DETECTD_DATA_DIR=/var/lib/detectd /usr/bin/node /opt/detectd/dist/src/cli.js) || fail "the CLI through systemd-run"
detect_dog http://127.0.0.1:8080 "$key" /dog.jpg podman exec "$host"
journal() { podman exec "$host" journalctl -u detectd --no-pager -o cat; }
[ "$(journal | grep -c '"allocator":"jemalloc"')" -gt 0 ] || fail "the service is not on jemalloc"
[ "$(journal | grep -c '"model":"yolo26n-640-int8"')" -gt 0 ] || fail "the service did not load the model docs/deployment.md installs"
logged systemd-stop podman exec "$host" systemctl stop detectd
[ "$(podman exec "$host" systemctl show -P Result detectd)" = success ] || fail "stop: $(podman exec "$host" systemctl show -P Result detectd)"
[ "$(journal | grep -c '"msg":"stopped"')" -gt 0 ] || fail "the service did not drain and stop on SIGTERM"
# A model file that is not there: the unit gives up after its five starts instead of restarting forever.
logged systemd-missing-model podman exec "$host" bash -euo pipefail -c '
  sed -i "s#^DETECTD_MODEL=.*#DETECTD_MODEL=/opt/detectd-models/missing.onnx#" /etc/detectd/detectd.env
  systemctl start detectd'
unit_failed() { [ "$(podman exec "$host" systemctl is-failed detectd)" = failed ]; }
wait_until 120 "the unit gives up on a missing model" unit_failed
[ "$(journal | grep -c 'missing.onnx: ENOENT')" -gt 0 ] || fail "the journal does not say which model is missing"
echo "started with its model, dog detected, jemalloc, stopped cleanly; with its model missing, failed after $(podman exec "$host" systemctl show -P NRestarts detectd) restarts"
echo "container-check: passed"
