# syntax=docker/dockerfile:1
# One image per role, built from this repository (docs/decisions/0034-operability.md):
#   docker build --target api .            the HTTP API
#   docker build --target worker .         the worker (payer portals through the packaged Chromium)
#   docker build --target payer-sandbox .  the simulated payer website
# compose.yaml runs all three with PostgreSQL.

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV CI=true TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
COPY package.json pnpm-lock.yaml ./
RUN PNPM_VERSION="$(node -p "require('./package.json').packageManager.split('@')[1]")" \
  && npm install --global --no-fund --no-audit "pnpm@${PNPM_VERSION}"
COPY . .
# Builds the apps, then keeps production dependencies only: the build's tools go, the built output stays.
RUN pnpm install --frozen-lockfile \
  && pnpm turbo run build --filter=@prior-auth/api... --filter=@prior-auth/worker... \
     --filter=@prior-auth/payer-sandbox... --filter=@prior-auth/admin... \
  && pnpm install --frozen-lockfile --prod --offline \
  && rm -rf .ci docs

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PRIOR_AUTH_DATA_DIR=/data
WORKDIR /app
# The image's unprivileged user owns nothing but the data folder (stored files when BLOB_STORAGE_URL is file://).
RUN mkdir -p /data && chown node:node /data
COPY --from=build --chown=root:root /app /app
USER node
VOLUME ["/data"]

FROM runtime AS payer-sandbox
EXPOSE 3100
CMD ["node", "apps/payer-sandbox/dist/main.js"]

FROM runtime AS worker
# Probes and metrics (/livez, /readyz, /health, /metrics).
ENV WORKER_HTTP_PORT=9464
EXPOSE 9464
CMD ["node", "apps/worker/dist/main.js"]

FROM runtime AS api
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--max-semi-space-size=32", "--no-flush-bytecode", "apps/api/dist/main.js"]
