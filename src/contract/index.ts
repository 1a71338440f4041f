/**
 * The contract host and plug-ins share, published as `@possekit/endpoint-syndicate/contract`:
 * plug-in and server types, the syndicator interface and the helpers every syndicator needs, the
 * post read model with its JF2 helpers, the post-source port, database, logger, errors and option
 * parsing, and what a plug-in's routes read of the host: `req.auth` (typed here for every importer)
 * with `hasScope()`, `setFlash()`, the request's `Translate` and `prefersHtml()`. It imports nothing
 * of the host nor of any plug-in (`npm run lint` checks it).
 *
 * @example
 * import type { Server, SyndicatorPlugin } from "@possekit/endpoint-syndicate/contract";
 * import { HttpError, parseOptions, postText } from "@possekit/endpoint-syndicate/contract";
 */
export * from "./auth.ts";
export * from "./copy-thread.ts";
export * from "./database.ts";
export * from "./flash.ts";
export * from "./http-error.ts";
export * from "./i18n.ts";
export * from "./jf2.ts";
export * from "./known-posts.ts";
export * from "./logger.ts";
export * from "./media.ts";
export * from "./mf2-jf2.ts";
export * from "./micropub.ts";
export * from "./negotiate.ts";
export * from "./options/option-schemas.ts";
export * from "./options/options-error.ts";
export * from "./plain-text.ts";
export * from "./plugin.ts";
export * from "./polled-source.ts";
export * from "./post-source.ts";
export * from "./posts.ts";
export * from "./syndication-error.ts";
export * from "./syndicator.ts";
export * from "./syndicator-kit.ts";
export * from "./thread-progress.ts";
