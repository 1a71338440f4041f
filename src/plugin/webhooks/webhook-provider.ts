// Which kind of deploy webhook a request is: a module of its own, as receiving one and keying its
// deliveries both need it.

/**
 * netlify: `{mountPath}` with X-Webhook-Signature, and `{mountPath}/webhook/netlify`;
 * github: `{mountPath}/webhook/github`; generic: `{mountPath}/webhook`.
 */
export type WebhookProvider = "netlify" | "github" | "generic";
