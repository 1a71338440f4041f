# possekit's container image (docs/deploying.md, "Container"). Not built by CI: the machine CI runs
# on has no container engine and no registry to pull node:20 from; test/deploy/container-files-
# are-consistent.test.ts checks what it can (non-root, the data volume, the health check).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No package's install script runs (npm's default here too); the build is run explicitly.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund --ignore-scripts

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/views ./views
COPY --from=build /app/locales ./locales
COPY --from=build /app/public ./public
# The config file (optional) is mounted at /srv/possekit/possekit.config.json; the data folder,
# its default application.dataDir, is the volume. Owned by the unprivileged node user (uid 1000).
RUN mkdir -p /srv/possekit/data && chown -R node:node /srv/possekit && chmod 700 /srv/possekit/data
WORKDIR /srv/possekit
USER node
VOLUME ["/srv/possekit/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--v8-pool-size=1", "--max-semi-space-size=4", "/app/bin/possekit.js", "serve"]
