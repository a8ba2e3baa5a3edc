# One image for the API and the worker (different commands), on the current Node LTS.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The workspace's package manifests, so npm ci installs what they need (the typed client's openapi-fetch).
COPY packages/client/package.json ./packages/client/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
COPY packages ./packages
# npm run build bundles the console (React) into dist/console: no runtime dependency of its own.
COPY console ./console
# The build's up-to-date check (scripts/build-api-if-changed.mjs).
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    LOCI_DATA_DIR=/app/data
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY migrations ./migrations
COPY bin ./bin
# The offline word-vector embedder's vocabulary (local:local-wordvec-v1), read at run time.
COPY libs/llm/assets/word-vectors-50k-100d.bin ./libs/llm/assets/
# The data dir belongs to the unprivileged user before the volume is mounted, so a new named
# volume starts owned by it (an embedded store or generated secrets could not be written otherwise).
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 3000
# Ready = store reachable, migrations applied, limit store reachable (GET /readyz). The slim image
# has no curl: Node's fetch does it. The worker service overrides this (it serves no HTTP).
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node is PID 1: it receives the orchestrator's SIGTERM itself and shuts down gracefully.
# The heap limit keeps the API under 300 MB RSS under query load (V8 otherwise lets old space grow
# to ~3x the live heap between collections: 321-356 MB peaks measured; docs/BENCHMARKS.md,
# "API memory"). In the command, not in NODE_OPTIONS, so the worker (compose overrides the
# command) keeps its own; a flag here wins over NODE_OPTIONS.
CMD ["node", "--max-old-space-size=256", "dist/apps/api/src/main.js"]
