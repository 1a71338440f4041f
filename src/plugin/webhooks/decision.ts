// What a verified webhook asks for. Every provider's decision has this one shape so that the route
// maps it to an answer in one place; `status` is the HTTP status to answer when no run starts.

/** Start the endpoint's batch run (trigger "webhook"). `summary` says which deploy, for the log. */
export interface StartRun {
  start: true;
  summary: string;
}

/** A genuine notification that should not start a run (a preview, a failed deploy, another event). */
export interface Ignored {
  start: false;
  outcome: "ignored";
  status: 200;
  reason: string;
}

/** GitHub's set-up check: answered, nothing started. */
export interface Pong {
  start: false;
  outcome: "pong";
  status: 200;
  reason: string;
}

/** Authentic (the signature verified) but not a body or event header we can read. */
export interface InvalidBody {
  start: false;
  outcome: "invalid_body";
  status: 400;
  reason: string;
}

export type WebhookDecision = StartRun | Ignored | Pong | InvalidBody;

export const startRun = (summary: string): StartRun => ({ start: true, summary });
export const ignored = (reason: string): Ignored => ({
  start: false,
  outcome: "ignored",
  status: 200,
  reason,
});
export const pong = (reason: string): Pong => ({ start: false, outcome: "pong", status: 200, reason });
export const invalidBody = (reason: string): InvalidBody => ({
  start: false,
  outcome: "invalid_body",
  status: 400,
  reason,
});

/** Whether `name` is one of `contexts`, ignoring case (GitHub environments are often "Production"). */
export function isConfiguredContext(name: string, contexts: readonly string[]): boolean {
  const wanted = name.toLowerCase();
  return contexts.some((context) => context.toLowerCase() === wanted);
}

/** Text from a sender, made fit to go into a response or a log line: printable and short. */
export function shown(value: string, max = 80): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const printable = value.replace(/[\u0000-\u001f\u007f]/g, "?");
  return printable.length > max ? `${printable.slice(0, max)}…` : printable;
}
