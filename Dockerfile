# syntax=docker/dockerfile:1
# drm-chatops: multi-stage build on Node 24 LTS. The build stage compiles TypeScript and the
# sqlite3 native module (N-API, so one build runs on any Node >= 20); the runtime stage holds only
# production dependencies and the compiled JavaScript, and runs as the unprivileged `node` user.
# The base is pinned to a Node 24 minor (patch releases still come in); `npm run image:verify`
# builds and runs this file without Docker (buildah) and checks the result.
# Build with the Docker image format (docker build does; buildah/podman: --format docker): the
# OCI format has no HEALTHCHECK and drops it.

FROM node:24.21-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# Production dependencies only: --omit=optional drops node-gyp (sqlite3's optional build tool, the
# only optional package). sqlite3's install-time dependencies go too: prebuild-install (and its ~30
# packages: tar-fs, simple-get, rc, ...), tar and node-addon-api fetch or compile the module at
# `npm ci` and are never loaded at run time (sqlite3 loads its module through `bindings`). They are
# dropped by removing those edges from the lockfile's sqlite3 entry (this stage's copy only) and
# pruning again, so npm itself works out which packages nothing else needs (37 with sqlite3 6.0.1).
# Of sqlite3 only the compiled module stays (no sources, objects or static libraries of its build),
# and the stage fails unless sqlite3 still loads.
RUN npm run build \
 && npm prune --omit=dev --omit=optional --no-audit --no-fund \
 && node -e "const fs=require('fs');const l=JSON.parse(fs.readFileSync('package-lock.json','utf8'));const d=l.packages['node_modules/sqlite3'].dependencies;for(const n of ['prebuild-install','tar','node-addon-api'])delete d[n];fs.writeFileSync('package-lock.json',JSON.stringify(l))" \
 && npm prune --omit=dev --omit=optional --no-audit --no-fund \
 && cd node_modules/sqlite3 \
 && mv build/Release/node_sqlite3.node /tmp/ \
 && rm -rf build deps src \
 && mkdir -p build/Release \
 && mv /tmp/node_sqlite3.node build/Release/ \
 && cd /app && node -e "new (require('sqlite3').Database)(':memory:').close()"

FROM node:24.21-bookworm-slim AS runtime
# The release (package.json "version"): image:verify passes it and tags the image with it; the
# running bot reports the same version on /healthz and in /dwm debug.
ARG APP_VERSION=unknown
LABEL org.opencontainers.image.title="drm-chatops" \
      org.opencontainers.image.version="${APP_VERSION}"
# Running the bot needs node alone: npm (which carries node-gyp), npx, corepack, yarn and the C
# headers for native builds are removed from the runtime stage.
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx \
      /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-* \
      /usr/local/include/node
# NODE_OPTIONS: a V8 heap cap keeps the resident memory near the live heap instead of letting
# uncollected garbage grow it (BENCHMARKS.md, figure 3: 1,000 watched sites have a ~24 MB live
# heap; on Node 24 peak RSS 259 MB with default flags, 127-131 MB with these: V8 sizes the young
# generation from the host's memory, 64 MB semi-spaces here). Raise --max-old-space-size for
# much larger deployments (about 24 MB per 1,000 watched sites, plus headroom).
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=96 --max-semi-space-size=4" \
    PORT=3000 \
    STORE_URL=sqlite:///data/drm-chatops.sqlite
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json manifest.yml ./
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000
# Liveness: /healthz answers 200 while the process serves requests (HTTP mode and Socket Mode both
# serve it on PORT).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The app handles SIGTERM itself (graceful shutdown: stops polling, flushes the outbox, closes the
# store). Node is PID 1 here, so run the container with --init (compose: init: true) to reap zombies.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
