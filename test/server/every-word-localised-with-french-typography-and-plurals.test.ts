// Words and languages (decision 0024): the messages that stayed English on German and French
// pages ("Nothing is at …", "The access token is not valid", the plug-ins' names) come from the
// locale files; French has its narrow no-break space before : ; ! ?; no message writes a plural as
// "(s)"; and every key exists in all three languages. API clients keep the English description.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { I18n } from "../../src/server/i18n.ts";
import { PACKAGE_ROOT } from "../../src/server/package-root.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { browser } from "./pages.ts";

type Messages = { [key: string]: string | Messages };

function leaves(messages: Messages, prefix = ""): Map<string, string> {
  const found = new Map<string, string>();
  for (const [key, value] of Object.entries(messages)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") found.set(path, value);
    else for (const [inner, text] of leaves(value, path)) found.set(inner, text);
  }
  return found;
}

const catalog = (locale: string) =>
  leaves(JSON.parse(readFileSync(join(PACKAGE_ROOT, "locales", `${locale}.json`), "utf8")) as Messages);

describe("every word localised, French typography, real plurals", () => {
  let server: TestServer;
  let session: { cookie: string; csrf: string };
  before(async () => {
    server = await startTestServer({ config: { plugins: ["@possekit/endpoint-syndicate"] } });
    session = await server.signIn();
  });
  after(() => server.close());

  it("says 'Nothing is at …' in the reader's language, and in English to an API client", async () => {
    const german = await fetch(`${server.url}/nowhere`, { headers: browser({ "accept-language": "de" }) });
    assert.equal(german.status, 404);
    const page = await german.text();
    assert.match(page, /Unter \/nowhere gibt es nichts\./);
    assert.doesNotMatch(page, /Nothing is at/);
    const api = await fetch(`${server.url}/nowhere`, { headers: { accept: "application/json" } });
    assert.equal(
      ((await api.json()) as { error_description: string }).error_description,
      "Nothing is at /nowhere",
    );
  });

  it("says why an access token is refused in the reader's language", async () => {
    const french = await fetch(`${server.url}/syndicate`, {
      headers: browser({ "accept-language": "fr", authorization: "Bearer not-a-token" }),
    });
    assert.equal(french.status, 401);
    const page = await french.text();
    assert.match(page, /Le jeton d’accès n’est pas valide\./);
    assert.doesNotMatch(page, /The access token is not valid/);
  });

  it("names the plug-ins in the reader's language on the status page", async () => {
    const page = await (
      await fetch(`${server.url}/status`, {
        headers: browser({ cookie: session.cookie, "accept-language": "fr" }),
      })
    ).text();
    assert.match(page, /Point d’accès Micropub/);
    assert.match(page, /Point d’accès de syndication/);
    assert.doesNotMatch(page, /Micropub endpoint|Syndication endpoint/);
  });

  it("has every key in English, German and French, and no plural written as (s)", () => {
    const english = catalog("en");
    for (const locale of ["de", "fr"]) {
      const other = catalog(locale);
      assert.deepEqual(
        [...english.keys()].filter((key) => !other.has(key)),
        [],
        `keys missing from ${locale}.json`,
      );
    }
    for (const locale of ["en", "de", "fr"]) {
      const plurals = [...catalog(locale)].filter(([, text]) => /\w\(s\)|\(e\)s|\(n\)/.test(text));
      assert.deepEqual(plurals, [], `${locale}: a plural written with parentheses`);
    }
  });

  it("puts a narrow no-break space before : ; ! ? in every French message, never a plain one or none", () => {
    const i18n = new I18n();
    i18n.addFolder(join(PACKAGE_ROOT, "locales"));
    const t = i18n.translator("fr");
    const wrong: string[] = [];
    for (const key of catalog("fr").keys()) {
      const text = t(key.replace(/\.(one|other|few|many)$/, ""), { count: 2 });
      // A sign that ends a clause (followed by a space or the end) must follow U+202F.
      if (/(?<!\u202f)[:;!?](\s|$)/.test(text)) wrong.push(`${key}: ${text}`);
    }
    assert.deepEqual(wrong, []);
    assert.equal(t("syndicate.flash.nothing"), "Rien n’attendait d’être syndiqué.");
    assert.equal(
      t("syndicate.summary.syndicated", { count: 2 }),
      "2 syndiqués",
      "a plural from Intl.PluralRules, not (s)",
    );
    assert.equal(t("syndicate.summary.syndicated", { count: 1 }), "1 syndiqué");
  });
});
