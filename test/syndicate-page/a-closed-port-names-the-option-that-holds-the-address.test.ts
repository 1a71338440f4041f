// Nothing listens where a target's address points (ECONNREFUSED): the page explains it and names
// the option that holds that address for this target, Bluesky's `serviceUrl` (not Mastodon's `url`),
// after the error text and a space, both on the post's row and in the targets section, in en/de/fr.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BlueskySyndicator } from "../../src/syndicators/bluesky/index.ts";
import {
  closeServerThenTargets,
  type EndpointServer,
  startWithOneTarget,
  type Target,
  until,
} from "../endpoint/endpoint-server.ts";
import { engines } from "../helpers/databases.ts";
import { freePort } from "../helpers/server.ts";
import { browser } from "../server/pages.ts";

const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replaceAll("&quot;", '"')
    .replaceAll("&#34;", '"')
    .replace(/\s+/g, " ")
    .trim();

for (const engine of engines) {
  describe(`a closed port names the option holding the address (${engine.name})`, () => {
    let target: Target | undefined;
    let app: EndpointServer | undefined;
    let cookie = "";
    let closed = "";
    let bluesky: BlueskySyndicator;
    const page = async (language = "en") => {
      assert.ok(app);
      const response = await fetch(`${app.url}/syndicate`, {
        headers: browser({ cookie, "accept-language": language }),
      });
      return response.text();
    };
    const targetsSection = (html: string) => {
      const item = new RegExp(
        `<li class="configured-target[^"]*" data-uid="${bluesky.info.uid}">([\\s\\S]*?)</li>`,
      ).exec(html);
      return textOf(item?.[1] ?? "");
    };

    before(async () => {
      // A port nothing listens on: asked of the system, then left closed.
      closed = `http://127.0.0.1:${await freePort()}`;
      bluesky = new BlueskySyndicator({
        handle: "alice.example",
        password: "app-password",
        serviceUrl: closed,
      });
      ({ target, app } = await startWithOneTarget(engine, {
        pluginOptions: { schedule: { enabled: false } },
        syndicators: [bluesky],
      }));
      ({ cookie } = await app.server.signIn());
      await app.createPost({ content: "To a Bluesky that is not there", targets: [bluesky.info.uid] });
      await (await app.syndication().runs.startBatch("manual")).done;
      await until("the start's check found the port closed", async () =>
        /ECONNREFUSED/.test(targetsSection(await page())),
      );
    });
    after(() => closeServerThenTargets(app, target));

    it("names serviceUrl, after the error and a space, in the targets section and on the post's row", async () => {
      const html = await page();
      const help = `Nothing answered at ${closed} (connection refused): the service is down, or the address is wrong. Check the option "@possekit/syndicator-bluesky".serviceUrl in possekit.config.json, and that the service runs.`;
      const section = targetsSection(html);
      // Tags make no space of their own: the words must not run together when shown.
      assert.match(
        html,
        /\(connect ECONNREFUSED [\d.:]+\)<\/span> <span class="target-help">Nothing answered at/,
        "a space between the error and the help",
      );
      assert.ok(section.includes(help), section);
      const row = textOf(
        /<li class="target state-[^"]*">([\s\S]*?)<\/li>/.exec(
          html.slice(html.indexOf("To a Bluesky")),
        )?.[1] ?? "",
      );
      assert.ok(row.includes(help), row);
      assert.doesNotMatch(html, /Check the target's url option/);
    });

    it("says it in German and French", async () => {
      assert.ok(
        targetsSection(await page("de")).includes(
          'Prüfen Sie die Option "@possekit/syndicator-bluesky".serviceUrl in possekit.config.json und ob der Dienst läuft.',
        ),
      );
      assert.ok(
        targetsSection(await page("fr")).includes(
          'Vérifiez l’option "@possekit/syndicator-bluesky".serviceUrl dans possekit.config.json, et que le service tourne.',
        ),
      );
    });

    it("names the Mastodon target's url the same way", () => {
      assert.equal(target?.syndicator().addressSetting, '"@possekit/syndicator-mastodon".url');
    });
  });
}
