// Tests written before the scheduler (decision 0014) prove what one trigger does: a server that sent
// posts by itself meanwhile would race them. Their servers run trigger-only (schedule.enabled
// false), as a user may configure it; tests of the scheduler give `schedule` themselves. Nor do they
// check their targets at start (targets.checkAtStart false): those requests would mingle with the
// ones they count; the tests of the checks give `targets` themselves.
const PLUGIN_PACKAGE = "@possekit/endpoint-syndicate";

export function triggerOnly(config: Record<string, unknown>): Record<string, unknown> {
  const plugins = Array.isArray(config.plugins) ? config.plugins : [];
  const entry = config[PLUGIN_PACKAGE];
  const options = entry && typeof entry === "object" && !Array.isArray(entry) ? entry : undefined;
  if (!plugins.includes(PLUGIN_PACKAGE) && !options) return config;
  const targets = options && "targets" in options ? {} : { targets: { checkAtStart: false } };
  if (options && "schedule" in options) return { ...config, [PLUGIN_PACKAGE]: { ...options, ...targets } };
  return { ...config, [PLUGIN_PACKAGE]: { ...options, schedule: { enabled: false }, ...targets } };
}
