// The order of the server (decision 0001): static assets; public and well-known routes; sign-in;
// authentication; authenticated routes; then not-found and the error handler.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import { prefersHtml } from "../contract/negotiate.ts";
import { authenticate } from "./auth/authenticate.ts";
import { insiderCheck } from "./auth/insider.ts";
import { SessionManager } from "./auth/session.ts";
import { sessionRevocations } from "./auth/session-revocations.ts";
import { tokenRegistry } from "./auth/token-registry.ts";
import { errorHandler, notFoundHandler } from "./errors.ts";
import { flashKey, startFlash } from "./flash.ts";
import { INDIEAUTH_PATH, METADATA_PATH } from "./indieauth/endpoints.ts";
import { grantStore } from "./indieauth/grant-store.ts";
import { indieauthRoutes, metadataRoute } from "./indieauth/routes.ts";
import { mediaFiles } from "./media/media-files.ts";
import { MEDIA_PATH } from "./media/media-store.ts";
import { type NavigationLink, navigationFor, withBadges } from "./navigation.ts";
import { PACKAGE_ROOT } from "./package-root.ts";
import { countingFailures, credentialKey, limiter } from "./rate-limit.ts";
import { rateLimitStore } from "./rate-limit-store.ts";
import { refuseNulCharacters } from "./refuse-nul.ts";
import { BACKUP_PATH, backupRoute } from "./routes/backup.ts";
import { healthRoute } from "./routes/health.ts";
import { homeRoute } from "./routes/home.ts";
import { sessionRoutes } from "./routes/session.ts";
import { statusRoutes } from "./routes/status.ts";
import type { RunningHost } from "./running-host.ts";
import { pagesFeeds, postPages } from "./stores/pages-routes.ts";
import { localeMiddleware } from "./views.ts";

const htmxFolder = dirname(createRequire(import.meta.url).resolve("htmx.org/dist/htmx.min.js"));

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.setHeader("Referrer-Policy", "same-origin");
  res.setHeader("X-Frame-Options", "DENY");
  res.setHeader(
    "Content-Security-Policy",
    "default-src 'self'; img-src 'self' data: https:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; form-action 'self'",
  );
  next();
}

export function buildApp(host: RunningHost): Express {
  const { application } = host.hostConfig;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", application.trustProxy);
  host.views.install(app);
  const sessions = new SessionManager(
    host.hostConfig.secrets.secret,
    host.publication.me,
    application.url.startsWith("https:"),
    sessionRevocations(host.database),
  );
  const limits = application.rateLimit;
  const hasDatabase = host.database !== null;
  // Each limiter counts apart (its own prefix); "database" shares the counts between instances.
  const storeFor = (prefix: string) =>
    rateLimitStore(limits.store, host.database, prefix, (error) =>
      host.logger.warn("Could not sweep expired rate-limit counts", {
        error: error instanceof Error ? error.message : String(error),
      }),
    );

  app.use(securityHeaders);
  app.use("/assets/vendor", express.static(htmxFolder, { maxAge: "1d", index: false }));
  app.use("/assets", express.static(join(PACKAGE_ROOT, "public"), { maxAge: "1h", index: false }));
  app.use(localeMiddleware(host.i18n, application.locale, host.publication.timezone));
  const flash = flashKey(host.hostConfig.secrets.secret);
  app.use((req, res, next) => {
    res.locals.application = { name: application.name };
    res.locals.publication = host.publication;
    res.locals.currentPath = req.path;
    res.locals.navigation = navigationFor(host.endpoints, req.path, hasDatabase);
    startFlash(req, res, flash);
    next();
  });
  const registry = tokenRegistry(host.database);
  app.get("/health", healthRoute(host, insiderCheck({ sessions, tokens: host.tokens, registry })));
  const pagesSite = {
    posts: () => host.posts,
    name: host.publication.name,
    me: host.publication.me,
    url: application.url,
    isOwner: async (req: Request) => (await sessions.read(req)) !== null,
    targets: () => host.syndicators.map((syndicator) => syndicator.info),
  };
  // The pages store's feeds are public, like the posts.
  if (host.hostConfig.store.type === "pages") app.use(pagesFeeds(pagesSite));
  // Uploaded files are public (they are published with posts), like the assets.
  app.use(MEDIA_PATH, mediaFiles(host.media));

  for (const endpoint of host.endpoints) {
    if (endpoint.routesWellKnown) app.use("/.well-known", endpoint.routesWellKnown);
  }
  // IndieAuth server metadata, for clients discovering the endpoints (IndieAuth §4.1.1).
  app.get(METADATA_PATH, ...metadataRoute(application.url));
  // Public routes verify who sent a request themselves (a webhook's signature): only the requests
  // they refuse count, per address, so unsigned traffic never stands in the way of a signed one.
  const publicFailures = limiter({
    windowMs: limits.windowMs,
    limit: limits.public,
    store: storeFor("public:"),
  });
  for (const endpoint of host.endpoints) {
    if (endpoint.routesPublic)
      app.use(endpoint.mountPath, endpoint.routesPublic, publicFailures.countFailure);
  }

  // For possekit backup on this machine; its refusals count like a public route's.
  app.post(BACKUP_PATH, backupRoute(host), publicFailures.countFailure);

  const bodyLimit = application.bodyLimit;
  // The multipart reader counts text fields against the same limit (micropub/multipart-request.ts).
  app.locals.bodyLimit = bodyLimit;
  app.use(express.urlencoded({ extended: true, limit: bodyLimit, parameterLimit: 1000 }));
  app.use(express.json({ limit: bodyLimit, type: ["application/json", "application/*+json"] }));
  app.use(refuseNulCharacters());

  const signInLimiter = limiter({
    windowMs: limits.windowMs,
    limit: limits.signIn,
    store: storeFor("sign-in:"),
  });
  app.use("/session", sessionRoutes(host, sessions, signInLimiter.middleware));
  app.get("/", homeRoute(host, sessions));

  // The IndieAuth server checks who asks itself (session and CSRF, codes, tokens): public routes,
  // whose refusals count per address like the other public routes'.
  // One grant store for both: without a database it lives in memory, and the status page's
  // revocations must reach the refresh tokens the token endpoint spends.
  const grants = grantStore(host.database);
  app.use(INDIEAUTH_PATH, indieauthRoutes(host, sessions, registry, grants), publicFailures.countFailure);
  // A request without a valid credential counts against its address, in a bucket of its own; one
  // with a credential counts against that credential only.
  const authenticated = countingFailures(
    authenticate({ sessions, tokens: host.tokens, registry, baseUrl: application.url }),
    limiter({ windowMs: limits.windowMs, limit: limits.public, store: storeFor("unauthenticated:") }),
  );
  const perCredential = limiter({
    windowMs: limits.windowMs,
    limit: limits.authenticated,
    store: storeFor("authenticated:"),
    key: credentialKey,
  }).middleware;
  const signedInLocals = (req: Request, res: Response, next: NextFunction) => {
    res.locals.auth = req.auth;
    res.locals.csrfToken = req.csrfToken;
    // Badges cost a query: only for pages a person reads.
    if (req.method !== "GET" || !prefersHtml(req)) {
      next();
      return;
    }
    withBadges(res.locals.navigation as NavigationLink[]).then((links) => {
      res.locals.navigation = links;
      next();
    }, next);
  };
  app.use("/status", authenticated, perCredential, signedInLocals, statusRoutes(host, registry, grants));
  for (const endpoint of host.endpoints) {
    if (endpoint.routes)
      app.use(endpoint.mountPath, authenticated, perCredential, signedInLocals, endpoint.routes);
  }

  // The pages store (the embedded default) serves the posts themselves, after every other route: a
  // post's URL never hides a host or plug-in route.
  if (host.hostConfig.store.type === "pages") app.use(postPages(pagesSite));

  app.use(notFoundHandler());
  app.use(errorHandler(host.logger, !host.hostConfig.production));
  return app;
}
