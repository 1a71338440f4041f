// A browser's form post without JavaScript: once the run is over, back to the page with the outcome.
import type { Response } from "express";
import { setFlash } from "../../server/flash.ts";
import type { Translate } from "../../server/i18n.ts";
import type { PostResult } from "../../syndication/types.ts";
import type { ResultSink } from "./result-sink.ts";

export function formRedirectSink(res: Response, redirectTo: string, single: boolean): ResultSink {
  let last: PostResult | undefined;
  return {
    result: (result) => {
      last = result;
    },
    end: (summary) => {
      if (res.writableEnded || res.destroyed) return;
      const t = res.locals.t as Translate;
      const failed = summary.failed > 0 || summary.partial > 0;
      const text =
        single && last
          ? t(`syndicate.flash.single.${last.status}`, { url: last.url })
          : summary.posts === 0
            ? t("syndicate.flash.nothing")
            : t("syndicate.flash.batch", {
                count: summary.posts,
                syndicated: summary.syndicated,
                partial: summary.partial,
                failed: summary.failed,
              });
      setFlash(res, { kind: failed ? "error" : "success", text });
      res.redirect(303, redirectTo);
    },
  };
}
