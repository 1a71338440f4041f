// What the host gives plug-ins to log with (Server.logger). Secrets never reach it: callers log ids
// and counts, not credentials.
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}
