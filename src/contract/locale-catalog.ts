// Localisation: <lang>.json files from the host and from plug-ins, deep-merged; keys are dotted
// paths; {name} placeholders; plural forms as objects keyed by Intl.PluralRules categories. In the
// contract because a plug-in that runs under a host with another translator (Indiekit's i18n knows
// neither {name} nor these plural forms) translates its own messages with it.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Translate } from "./i18n.ts";

type Messages = { [key: string]: string | Messages };

export const DEFAULT_LOCALE = "en";

function deepMerge(target: Messages, source: Messages): Messages {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    if (typeof value === "object" && typeof existing === "object") deepMerge(existing, value);
    else target[key] = typeof value === "object" ? deepMerge({}, value) : value;
  }
  return target;
}

const NARROW_NO_BREAK_SPACE = "\u202f";

/**
 * French typography: a narrow no-break space before : ; ! ? and inside « », so that a line never
 * starts with the sign. Applied to the message, not to the values put into it (a URL's "://" or a
 * time's "12:36" are left alone, as is a sign not followed by a space or the end).
 */
export function frenchSpacing(text: string): string {
  return text
    .replace(/[ \u00a0\u202f]?([:;!?])(?=\s|$)/g, `${NARROW_NO_BREAK_SPACE}$1`)
    .replace(/«[ \u00a0\u202f]?/g, `«${NARROW_NO_BREAK_SPACE}`)
    .replace(/[ \u00a0\u202f]?»/g, `${NARROW_NO_BREAK_SPACE}»`);
}

export type { Translate };

export class I18n {
  private readonly catalogs = new Map<string, Messages>();
  private readonly folders = new Set<string>();
  private readonly translators = new Map<string, Translate>();

  addFolder(folder: string): void {
    if (this.folders.has(folder) || !existsSync(folder)) return;
    this.folders.add(folder);
    for (const file of readdirSync(folder)) {
      if (!file.endsWith(".json")) continue;
      const locale = file.slice(0, -".json".length);
      const messages = JSON.parse(readFileSync(join(folder, file), "utf8")) as Messages;
      this.catalogs.set(locale, deepMerge(this.catalogs.get(locale) ?? {}, messages));
    }
    this.translators.clear();
  }

  get locales(): string[] {
    return [...this.catalogs.keys()].sort();
  }

  private lookup(locale: string, key: string): string | Messages | undefined {
    let node: string | Messages | undefined = this.catalogs.get(locale);
    for (const part of key.split(".")) {
      if (node === undefined || typeof node === "string") return undefined;
      node = node[part];
    }
    return node;
  }

  /** One translator per locale, made once: Intl objects are costly to build on every request. */
  translator(locale: string): Translate {
    let translate = this.translators.get(locale);
    if (!translate) {
      translate = this.makeTranslator(locale);
      this.translators.set(locale, translate);
    }
    return translate;
  }

  private makeTranslator(locale: string): Translate {
    const plurals = new Intl.PluralRules(locale);
    const numbers = new Intl.NumberFormat(locale);
    const typography = locale.split("-")[0] === "fr" ? frenchSpacing : (text: string) => text;
    return (key, values = {}) => {
      let entry = this.lookup(locale, key) ?? this.lookup(DEFAULT_LOCALE, key);
      if (entry !== undefined && typeof entry === "object") {
        const count = Number(values.count ?? 0);
        const form = entry[plurals.select(count)] ?? entry.other;
        entry = typeof form === "string" ? form : undefined;
      }
      if (entry === undefined) return key;
      return typography(entry).replace(/\{(\w+)\}/g, (whole, name: string) => {
        const value = values[name];
        if (value === undefined) return whole;
        return typeof value === "number" ? numbers.format(value) : value;
      });
    };
  }

  /** The configured locale, else the best of Accept-Language, else English. */
  negotiate(configured: string | undefined, acceptsLanguages: (langs: string[]) => string | false): string {
    if (configured && this.catalogs.has(configured)) return configured;
    // The default first: without Accept-Language, acceptsLanguages answers the first it is offered.
    const available = [DEFAULT_LOCALE, ...this.locales.filter((l) => l !== DEFAULT_LOCALE)];
    const chosen = acceptsLanguages(available);
    if (chosen) return chosen;
    // "de-AT" should find "de".
    const base = acceptsLanguages(available.map((l) => l.split("-")[0] ?? l));
    return base && this.catalogs.has(base) ? base : DEFAULT_LOCALE;
  }
}
