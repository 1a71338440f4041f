// The host's localisation is the contract's catalogue (src/contract/locale-catalog.ts): one
// engine for the host and for a plug-in that translates its own messages under another host.
export { DEFAULT_LOCALE, frenchSpacing, I18n, type Translate } from "../contract/locale-catalog.ts";
