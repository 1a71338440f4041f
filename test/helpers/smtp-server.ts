// A real SMTP server on 127.0.0.1 (smtp-server, the nodemailer project's own) that keeps every mail
// it is given, for the tests of notifications by e-mail.
import type { AddressInfo } from "node:net";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";

export interface Mail {
  to: string[];
  raw: string;
}

export interface TestSmtp {
  server: SMTPServer;
  port: number;
  mails: Mail[];
  close(): Promise<void>;
}

/**
 * Without `login`, anyone may send; with it, only that user and password (over plain SMTP: the
 * server offers no STARTTLS). `reply` is the text after "250 " that accepts a mail.
 */
export function startSmtp(
  options: {
    login?: { user: string; password: string };
    reply?: string;
    refuse?: SMTPServerOptions["onRcptTo"];
  } = {},
): Promise<TestSmtp> {
  const mails: Mail[] = [];
  const { login } = options;
  const server = new SMTPServer({
    authOptional: !login,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    ...(login
      ? {
          onAuth(auth, _session, callback) {
            if (auth.username === login.user && auth.password === login.password)
              callback(null, { user: auth.username });
            else
              callback(
                Object.assign(new Error("5.7.8 Authentication credentials invalid"), { responseCode: 535 }),
              );
          },
        }
      : {}),
    ...(options.refuse ? { onRcptTo: options.refuse } : {}),
    onData(stream, session, callback) {
      let raw = "";
      stream.setEncoding("utf8");
      stream.on("data", (chunk: string) => {
        raw += chunk;
      });
      stream.on("end", () => {
        mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw });
        if (options.reply) callback(null, options.reply);
        else callback();
      });
    },
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.server.address() as AddressInfo;
      resolve({
        server,
        port,
        mails,
        close: () => new Promise((closed) => server.close(() => closed())),
      });
    });
  });
}

/** A mail's text, quoted-printable soft breaks and escapes undone. */
export const textOf = (mail: Mail) =>
  mail.raw
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));
