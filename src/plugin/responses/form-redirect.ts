// A browser's form post without JavaScript: once the run is over, back to the page with the outcome.
import type { Response } from "express";
import { setFlash } from "../../contract/flash.ts";
import type { Translate } from "../../contract/i18n.ts";
import type { PostResult } from "../../syndication/types.ts";
import { asFlash, batchSummaryView, singleSummaryView } from "../page/run-summary.ts";
import type { ResultSink } from "./result-sink.ts";

export function formRedirectSink(
  res: Response,
  redirectTo: string,
  single: boolean,
  mountPath: string,
): ResultSink {
  let last: PostResult | undefined;
  return {
    result: (result) => {
      last = result;
    },
    end: (summary) => {
      if (res.writableEnded || res.destroyed) return;
      const t = res.locals.t as Translate;
      const view =
        single && last
          ? singleSummaryView(t, last, last.url, "flash")
          : batchSummaryView(t, summary, mountPath);
      setFlash(res, asFlash(view));
      res.redirect(303, redirectTo);
    },
  };
}
