#!/usr/bin/env bash
# Builds the detectd image and runs the four ways of docs/deployment.md under podman on this machine:
#   1. the image (Dockerfile): healthy by its own HEALTHCHECK, an account and a service from its CLI, a
#      detection of ../shared/eval/photos/dog.jpg, its log saying the jemalloc allocator, and on SIGTERM
#      (podman stop) a drained exit with status 0;
#   2. compose.yaml: two detectd replicas on PostgreSQL behind nginx; detections sent to nginx answered
#      by both replicas (each one's log has calls), both on jemalloc and PostgreSQL; one replica stopped,
#      nginx sends every detection to the other;
#   3. deploy/detectd.service: the systemd steps of docs/deployment.md on a Debian machine booted with systemd (a
#      container), the image's /app standing in for the checkout after `npm ci`: the service starts with
#      its model, detects, logs jemalloc, and stops drained (result "success"); with its model file missing,
#      it stops restarting and stays failed, the journal giving the reason detectd itself gives;
#   4. deploy/kubernetes/detectd.yaml with `podman kube play`: the init containers pull the model (from a mirror
#      of ../shared/models here), both replicas turn ready on a PostgreSQL and detect; `podman kube down` while a
#      request is in flight: readiness goes at SIGTERM, the request is answered, the pods drain.
# Needs root, podman with runc, podman-compose, debootstrap, curl, catatonit (the pods' pause process), ../shared,
# and the checkout's node_modules (npm ci) (Debian: apt-get install podman podman-compose debootstrap runc curl
# catatonit golang-github-containernetworking-plugin-dnsname). The last package: Debian 12's podman 4.3 networks
# containers with CNI, where a container reaches another by its name (the replicas reach "postgres", nginx
# "detectd") only through the dnsname plugin; without it the compose step fails with getaddrinfo ENOTFOUND
# postgres. Both are checked before anything starts. No registry is needed: the base images are the
# local stand-ins of scripts/container-bases.sh, unless NODE_IMAGE, BUILD_IMAGE, POSTGRES_IMAGE,
# NGINX_IMAGE and SYSTEMD_IMAGE are all set. The images stay for the next run (its builds then come from
# podman's layer cache); each step removes its containers, pods, networks and volumes, and so does the end
# of the run whether it passes or fails (and the start of the next, for what an interrupted run left).
# Times on the 2-core reference machine: docs/development.md.
set -euo pipefail
cd "$(dirname "$0")/.."

# What it needs, checked before anything starts.
missing=()
for command in podman podman-compose debootstrap runc curl catatonit node; do command -v "$command" >/dev/null || missing+=("$command"); done
[ "${#missing[@]}" = 0 ] || { echo "container-check: not installed: ${missing[*]} (Debian: apt-get install podman podman-compose debootstrap runc curl catatonit golang-github-containernetworking-plugin-dnsname; node: Node.js >= 20.19)" >&2; exit 1; }
[ -f ../shared/eval/photos/dog.jpg ] && [ -d ../shared/models ] || { echo "container-check: ../shared (models and photos) is not beside the checkout" >&2; exit 1; }
if [ "$(podman info --format '{{.Host.NetworkBackend}}' 2>/dev/null)" = cni ] \
  && ! [ -x /usr/lib/cni/dnsname ] && ! [ -x /usr/libexec/cni/dnsname ] && ! [ -x /opt/cni/bin/dnsname ]; then
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
kube_network=detectd-check-kube
kube_postgres=detectd-check-postgres
mirror_pid=
volumes_before=()
volumes_recorded=0

logs=$(mktemp -d /tmp/detectd-container-check.XXXXXX)
step() { printf '\n== %s\n' "$*"; }
# What failed, and the state and last log lines of every container this check started.
fail() {
  local name
  for name in $(podman ps -a --filter "name=^$container" --filter "name=^detectd-pod-" --format '{{.Names}}'); do
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
  podman rm -f -v -i -t 0 "$container" "$host" >/dev/null 2>&1 || true
  for leftover in $(podman ps -a -q --filter "label=com.docker.compose.project=$project" 2>/dev/null); do podman rm -f -v -i -t 0 "$leftover" >/dev/null 2>&1 || true; done
  podman network rm -f "${project}_default" >/dev/null 2>&1 || true
  for leftover in $(podman volume ls -q --filter "label=com.docker.compose.project=$project" 2>/dev/null) "${project}_postgres-data"; do podman volume rm -f "$leftover" >/dev/null 2>&1 || true; done
}
# The volumes this run made that are left (the anonymous volumes of images' VOLUMEs, which podman keeps after
# the pods of the kube step), once the volumes there were before it are known.
new_volumes_removed() {
  local leftover
  [ "$volumes_recorded" = 1 ] || return 0
  for leftover in $(comm -13 <(printf '%s\n' "${volumes_before[@]}") <(podman volume ls -q | sort)); do podman volume rm -f "$leftover" >/dev/null 2>&1 || true; done
}
# The pods of deploy/kubernetes/detectd.yaml (podman names them <Deployment>-pod-<n>).
kube_pods() { podman pod ps --format '{{.Name}}' | grep -E '^detectd-pod-[0-9]+$' | sort; }
# What the kube step made: its pods and their volumes (podman 4.3 makes an emptyDir a named volume), the
# Secret, PostgreSQL, the network and the models mirror.
kube_cleanup() {
  local pod
  for pod in $(kube_pods); do podman pod rm -f -t 0 "$pod" >/dev/null 2>&1 || true; done
  podman rm -f -v -i -t 0 "$kube_postgres" >/dev/null 2>&1 || true
  podman secret rm detectd >/dev/null 2>&1 || true
  podman volume rm -f detectd-models detectd-data >/dev/null 2>&1 || true
  new_volumes_removed
  podman network rm -f "$kube_network" >/dev/null 2>&1 || true
  if [ -n "$mirror_pid" ]; then kill "$mirror_pid" 2>/dev/null || true; mirror_pid=; fi
}
# Left over from an interrupted or failed run.
cleanup
kube_cleanup
mapfile -t volumes_before < <(podman volume ls -q | sort)
volumes_recorded=1
trap 'cleanup; kube_cleanup; rm -rf "$logs"' EXIT

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
# Every feature's console scripts and stylesheets are in the image, where its cards name them.
for asset in src/features/*/console/*; do
  feature=${asset#src/features/}
  curl -sf -o /dev/null "http://127.0.0.1:$port/console/assets/${feature%%/*}/${asset##*/}" || fail "the image does not serve $asset"
done
logged stop podman stop -t 40 "$container"
[ "$(podman inspect -f '{{.State.ExitCode}}' "$container")" = 0 ] || fail "exit status after SIGTERM: $(podman inspect -f '{{.State.ExitCode}}' "$container")"
expect_log "$container" '"msg":"stopped"' 'did not drain and stop on SIGTERM'
logged remove podman rm -v "$container"
echo "healthy, dog detected, the features' console files served, jemalloc, stopped cleanly"

step "compose.yaml: two replicas, PostgreSQL, nginx"
DETECTD_SECRET=$(node -e 'console.log(require("crypto").randomBytes(32).toString("hex"))')
POSTGRES_PASSWORD=$(node -e 'console.log(require("crypto").randomBytes(16).toString("hex"))')
export DETECTD_SECRET POSTGRES_PASSWORD DETECTD_MODELS_HOST_DIR=$models DETECTD_INFERENCE_THREADS=1 DETECTD_PROXY_PORT=$(free_port)
proxy=http://127.0.0.1:$DETECTD_PROXY_PORT
# --build: the image of this checkout, not one an earlier run left under the same name (the layer cache keeps it quick).
logged compose-up compose up -d --build
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
# One replica stops: nginx sends every detection to the other.
logged compose-stop-replica podman stop -t 40 "${names[1]}"
for ((request = 0; request < 4; request++)); do detect_dog "$proxy" "$key" "$photo"; done
echo "${names[1]} stopped: 4 of 4 answered by ${names[0]}"
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
# What the journal must say: the reason the installed detectd itself gives, started by hand with the unit's
# settings (not a copy of the sentence here, which would go stale when the message changes).
reason=$(podman exec "$host" systemd-run --quiet --pipe --wait -p User=detectd -p EnvironmentFile=/etc/detectd/detectd.env \
  -p Environment=DETECTD_DATA_DIR=/var/lib/detectd -p WorkingDirectory=/opt/detectd /usr/bin/node /opt/detectd/dist/src/main.js 2>&1 \
  | sed -n 's/^detectd: cannot start: //p') || true
[[ "$reason" == *missing.onnx* ]] || fail "detectd started by hand with the missing model does not name it: $reason"
[ "$(journal | grep -c -F -- "$reason")" -gt 0 ] || fail "the journal does not say: $reason"
echo "started with its model, dog detected, jemalloc, stopped cleanly; with its model missing, failed after $(podman exec "$host" systemctl show -P NRestarts detectd) restarts"
logged systemd-remove podman rm -f -v -t 0 "$host"

step "deploy/kubernetes/detectd.yaml: podman kube play"
# Replicas on PostgreSQL as the manifest has them (podman 4.3 starts a pod per replica), on a network of their
# own; the init containers pull the model from a mirror of ../shared/models on this machine (no internet here).
logged kube-network podman network create "$kube_network"
gateway=$(podman network inspect "$kube_network" --format '{{range .Subnets}}{{.Gateway}}{{end}}')
mirror_port=$(free_port)
node -e 'const e = require("express"); e().use(e.static(process.argv[1])).listen(Number(process.argv[2]), "0.0.0.0")' "$models" "$mirror_port" &
mirror_pid=$!
POSTGRES_PASSWORD=$(node -e 'console.log(require("crypto").randomBytes(16).toString("hex"))')
logged kube-postgres podman run -d --name "$kube_postgres" --network "$kube_network" \
  -e POSTGRES_USER=detectd -e POSTGRES_DB=detectd -e POSTGRES_PASSWORD="$POSTGRES_PASSWORD" "$POSTGRES_IMAGE"
wait_until 60 "PostgreSQL accepts connections" podman exec "$kube_postgres" pg_isready -U detectd -d detectd
# What podman 4.3 cannot take as it is (the cluster's parts are the manifest's own):
# - its Secret kind: podman keeps the document in YAML and then reads it as JSON of base64 values; the values
#   go in as that JSON, with a PostgreSQL of this check and a fresh DETECTD_SECRET;
# - an init container under restartPolicy Always (a Deployment's) is started again and again: OnFailure;
# - every containerPort is published on the host (a second replica cannot bind it): none is, the pods are
#   reached at their addresses, the probes' named port given as its number;
# - the image is the one built here; the ConfigMap gains the models mirror.
node --input-type=module -e '
  import fs from "node:fs";
  import { parseAllDocuments, stringify } from "yaml";
  const [manifest, out, secretOut, image, mirror, values] = process.argv.slice(1);
  const documents = parseAllDocuments(fs.readFileSync(manifest, "utf8")).map((document) => document.toJS());
  const given = JSON.parse(values);
  for (const document of documents) {
    if (document.kind === "ConfigMap") document.data.DETECTD_MODELS_MIRROR = mirror;
    if (document.kind === "Secret") {
      const keys = Object.keys(document.stringData);
      if (keys.sort().join() !== Object.keys(given).sort().join()) throw new Error(`the Secret has ${keys}`);
      fs.writeFileSync(secretOut, JSON.stringify(Object.fromEntries(keys.map((key) => [key, Buffer.from(given[key]).toString("base64")]))));
    }
    if (document.kind === "Deployment") {
      const pod = document.spec.template.spec;
      pod.restartPolicy = "OnFailure";
      for (const container of [...pod.initContainers, ...pod.containers]) {
        container.image = image;
        const numbers = Object.fromEntries((container.ports ?? []).map((port) => [port.name, port.containerPort]));
        for (const probe of ["startupProbe", "livenessProbe", "readinessProbe"]) {
          if (container[probe]?.httpGet) container[probe].httpGet.port = numbers[container[probe].httpGet.port] ?? container[probe].httpGet.port;
        }
        delete container.ports;
      }
    }
  }
  fs.writeFileSync(out, documents.filter((document) => document.kind !== "Secret").map((document) => stringify(document)).join("---\n"));
' deploy/kubernetes/detectd.yaml "$logs/kube.yaml" "$logs/kube-secret.json" "$image" "http://$gateway:$mirror_port" \
  "{\"DETECTD_SECRET\":\"$DETECTD_SECRET\",\"DETECTD_DATABASE_URL\":\"postgres://detectd:$POSTGRES_PASSWORD@$kube_postgres:5432/detectd\"}" \
  || fail "rendering deploy/kubernetes/detectd.yaml for podman"
logged kube-secret podman secret create detectd "$logs/kube-secret.json"
logged kube-play podman kube play --network "$kube_network" "$logs/kube.yaml"
mapfile -t pods < <(kube_pods)
[ "${#pods[@]}" = 2 ] || fail "pods running: ${pods[*]}"
key=
for pod in "${pods[@]}"; do
  address=$(podman inspect "$pod-detectd" --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}')
  wait_until 180 "$pod turns ready (/readyz)" curl -sf "http://$address:8080/readyz"
  expect_log "$pod-detectd" '"database":"postgresql"' 'not on PostgreSQL'
  key=${key:-$(create_key podman exec "$pod-detectd" node dist/src/cli.js)} || fail "the CLI in $pod"
  detect_dog "http://$address:8080" "$key" "$photo"
done
echo "${pods[*]} ready, on PostgreSQL, dog detected by each"
# A pod told to stop while a request is in flight: its upload (rate-limited: seconds) is under way at SIGTERM,
# which the server's container gets as from Kubernetes (podman stop, the manifest's grace period). The server
# stops accepting at once (/readyz answers no more: readiness false) and answers that request. (Not through
# `podman kube down` itself: podman 4.3 stops the pod's infra container, and with it the pod's network, at the
# same time as the others, cutting the request; Kubernetes keeps a pod's network until its containers stopped.)
address=$(podman inspect "${pods[0]}-detectd" --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}')
curl -sS --max-time 60 --fail-with-body --limit-rate 25k "http://$address:8080/api/v1/object-detection" -H "Authorization: ApiKey $key" \
  -F "image=@$photo" -F ConfidenceThreshold=0.5 >"$logs/in-flight.json" 2>&1 &
in_flight=$!
sleep 2
podman stop -t 45 "${pods[0]}-detectd" >"$logs/kube-stop.log" 2>&1 &
stopping=$!
not_ready() { ! curl -sf --max-time 5 "http://$address:8080/readyz"; }
wait_until 30 "/readyz stops answering once the pod's server got SIGTERM" not_ready
kill -0 "$in_flight" 2>/dev/null || fail "the request was no longer in flight when readiness turned false"
wait "$in_flight" || fail "the request in flight at SIGTERM: $(cat "$logs/in-flight.json")"
node -e 'if (!JSON.parse(process.argv[1]).detected_objects.some((o) => o.name === "dog")) process.exit(1)' "$(cat "$logs/in-flight.json")" \
  || fail "the request in flight at SIGTERM: $(cat "$logs/in-flight.json")"
wait "$stopping" || { cat "$logs/kube-stop.log" >&2; fail "podman stop ${pods[0]}-detectd"; }
[ "$(podman inspect -f '{{.State.ExitCode}}' "${pods[0]}-detectd")" = 0 ] || fail "${pods[0]}: exit status after SIGTERM"
expect_log "${pods[0]}-detectd" '"msg":"stopped"' 'did not drain and stop on SIGTERM'
logged kube-down podman kube down "$logs/kube.yaml"
[ -z "$(kube_pods)" ] || fail "pods left after podman kube down: $(kube_pods)"
echo "SIGTERM with a request in flight: readiness false at once, the request answered, drained; podman kube down removed the pods"
kube_cleanup
echo "container-check: passed"
