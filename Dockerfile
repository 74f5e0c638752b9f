# syntax=docker/dockerfile:1
# detectd: build with `docker build -t detectd .`; run with the models mounted at /models (docs/deployment.md).

# Debian, not Alpine: onnxruntime-node, sharp, better-sqlite3 and jpeg-turbo ship prebuilt glibc binaries.
# NODE_IMAGE runs detectd (Node.js and apt); BUILD_IMAGE compiles it (Node.js, npm and apt), the same
# Node.js major, since the native modules are built for it. Without a registry, local stand-ins:
# scripts/container-bases.sh.
ARG NODE_IMAGE=node:22-bookworm-slim
ARG BUILD_IMAGE=node:22-bookworm-slim

FROM ${BUILD_IMAGE} AS build
WORKDIR /app
# Compilers only as the fallback of a native module without a prebuilt binary for this platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# The npm of this image predates package.json "allowScripts": this skips onnxruntime-node's CUDA download.
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json ./
# The dependencies in a layer of their own, built again only when the lock file changes: installed without
# running scripts (this package's own prepare compiles src/, not yet here), then their install scripts
# (the native bindings).
RUN npm ci --no-audit --no-fund --ignore-scripts \
 && npm rebuild
COPY tsconfig.json ./
COPY src ./src
# Compiles src/ into dist/ (tests and scripts stay out of the image); then the development packages go, and
# the ONNX Runtime libraries of other platforms (onnxruntime-node ships all six: ~290 MB, this one's ~45).
# The features' console scripts and stylesheets (each feature's console/ folder, Feature.consoleAssets) are
# gathered apart, under their paths, so that the image carries them and no TypeScript.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && find node_modules/onnxruntime-node/bin -mindepth 3 -maxdepth 3 -type d ! -path "*/linux/$(node -p process.arch)" -exec rm -rf {} + \
 && mkdir /app/console-assets \
 && find src/features -path '*/console/*' -type f -exec cp --parents {} /app/console-assets/ \;

FROM ${NODE_IMAGE}
# fonts: the labels drawn on visualized images. libjemalloc2: the allocator detectd runs on (as `npm start`
# does: RSS stays flat under large images). The unprivileged user detectd (no login) owns only the data folder
# and the models folder (a volume there starts out as the user's: `detectd models pull` fills it, as the init
# container of deploy/kubernetes does).
RUN apt-get update \
 && apt-get install -y --no-install-recommends fonts-dejavu-core libjemalloc2 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --user-group --home-dir /var/lib/detectd --no-create-home --shell /usr/sbin/nologin detectd \
 && mkdir -p /var/lib/detectd /models \
 && chown detectd:detectd /var/lib/detectd /models
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY schemas ./schemas
COPY assets ./assets
COPY --from=build /app/console-assets/src ./src
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DETECTD_DATA_DIR=/var/lib/detectd
USER detectd
# Models are mounted read-only at /models (DETECTD_MODEL=/models/<file>.onnx); with none set, the embedded YOLOX-nano serves.
VOLUME ["/var/lib/detectd"]
EXPOSE 8080
# Ready = model loaded and database reachable. No curl in the slim image: Node's fetch asks.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# start.js, as `npm start`: runs the server (main.js) in a child on jemalloc. As PID 1 it passes SIGTERM
# (docker stop) on: detectd drains the requests in flight and exits, and start.js with it.
CMD ["node", "dist/src/start.js"]
