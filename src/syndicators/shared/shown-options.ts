// What a syndicator shows of its options (SyndicatorPlugin.options: the status page, the logs, the
// copies' JSON): never a secret, and the copy's template as the user wrote it, not its compiled form.

/**
 * The parsed options without `secrets`; `template`, when set, as written in the config (`written`).
 *
 * @example shownOptions({ url, accessToken, template: compiled }, { template: "{{ name }}" }, ["accessToken"])
 * // { url, template: "{{ name }}" }
 */
export function shownOptions<Parsed extends { template?: unknown }>(
  parsed: Parsed,
  written: Record<string, unknown>,
  secrets: readonly (keyof Parsed)[],
): Record<string, unknown> {
  const { template, ...rest } = parsed;
  const shown: Record<string, unknown> = { ...rest };
  for (const secret of secrets) delete shown[secret as string];
  return { ...shown, ...(template ? { template: written.template } : {}) };
}
