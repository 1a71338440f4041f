// Debian's Chromium, launched as this machine needs it: never a browser Playwright downloads, no
// sandbox (root), and none of Chromium's own network traffic (this machine has no internet; its
// refused connections slow every start).
import { type Browser, chromium } from "playwright";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
