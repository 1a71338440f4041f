// The request's translator: the host sets it as res.locals.t from the reader's language, with the
// plug-ins' locale folders merged in (Server.addLocales).
export type Translate = (key: string, values?: Record<string, string | number>) => string;
