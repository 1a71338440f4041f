// What the endpoint's API routes answer when the server runs without a database, and so without the
// core: 501 saying what needs one (noDatabase in src/contract/http-error.ts). The page's routes say
// it in the reader's language (noDatabasePage in src/plugin/page/services.ts).
import { noDatabase } from "../../contract/http-error.ts";
import type { Syndication } from "../../syndication/syndication.ts";
import type { RouteContext } from "../routes/route-context.ts";

/** The core, or a 501 whose description is `description`. */
export function syndicationOr501(
  context: Pick<RouteContext, "syndication">,
  description = "Syndication needs a database; this server runs without one",
): Syndication {
  const syndication = context.syndication();
  if (!syndication) throw noDatabase(description);
  return syndication;
}
