# syntax=docker/dockerfile:1
# One image for every entrypoint: `genjobs api`, `genjobs controller`, `genjobs worker` and the
# admin commands (`genjobs accounts …`, `genjobs keys …`). Only compiled JavaScript ships.
# The Node version the project pins and tests with (the `node` dev dependency in
# package-lock.json; a test keeps them equal): a floating tag would build each release on
# whichever Node 24 was newest that day.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No install scripts: the only one is the `node` dev dependency's download of a second Node
# binary, which the build does not need (this image has the same Node).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# `npm run build` compiles src/ to dist/ and copies src/catalog/default-catalog.yaml beside
# dist/catalog/load.js, which reads it at run time.
RUN npm run build
RUN test -f dist/catalog/default-catalog.yaml \
 || { echo 'dist/catalog/default-catalog.yaml is missing: the build script must copy it' >&2; exit 1; }

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
# ffmpeg encodes the builtin text-to-video output; fonts-dejavu-core is the font the builtin
# image renderer (sharp's librsvg, through fontconfig) draws captions with ("DejaVu Sans").
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg fonts-dejavu-core ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
# The user every Pod runs as (the chart's and the worker Pods' runAsUser). The home is not
# writable in Pods (read-only root filesystem): the worker gets HOME and TMPDIR on its
# scratch volume, the api and controller a /tmp emptyDir.
RUN groupadd --gid 10001 genjobs \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin genjobs \
 && mkdir -p /var/lib/genjobs/blobs && chown 10001:10001 /var/lib/genjobs/blobs
WORKDIR /app
ENV NODE_ENV=production \
    PATH=/app/bin:$PATH
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY crds ./crds
# bin/genjobs.js runs dist/cli.js when src/ is absent, as here.
RUN ln -s /app/bin/genjobs.js /app/bin/genjobs && chmod 0755 /app/bin/genjobs.js
USER 10001:10001
EXPOSE 8080 8081
# tini reaps ffmpeg children and forwards SIGTERM, so Node shuts down in order.
ENTRYPOINT ["/usr/bin/tini", "--", "genjobs"]
CMD ["--help"]
