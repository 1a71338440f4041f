// Indiekit gives a plug-in no way to refuse the start with a message: an error thrown from init()
// rejects a promise its command line does not catch, and Node prints a stack trace of Indiekit's
// internals. Under Indiekit a configuration mistake is therefore one line on stderr and exit code 1,
// as possekit's own command line does for its ConfigError.

/** Writes `@possekit/endpoint-syndicate: <problem>` and ends the process: the server does not start. */
export function refuseToStart(packageName: string, problem: string): never {
  process.stderr.write(`${packageName}: ${problem}\n`);
  process.exit(1);
}
