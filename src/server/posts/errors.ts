// Errors of the post service that callers turn into answers (the Micropub endpoint: 400 invalid_request).
// PostNotFoundError lives in types.ts, with the interface.

/** The properties or the update operations break a storage rule; the message says which and how to fix it. */
export class InvalidPostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidPostError";
  }
}

/** A paging cursor that this service did not hand out (or that was altered). */
export class InvalidCursorError extends Error {
  constructor(readonly cursor: string) {
    super(`The paging cursor "${cursor}" is not one this server handed out; start again from the first page`);
    this.name = "InvalidCursorError";
  }
}
