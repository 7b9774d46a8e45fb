// One browser page on the UI of a fresh daemon, with one live tab (opened like a person, with
// "Open a terminal"): the set-up most suites share.
import { launchBrowser, newPage, openFirstTerminal } from './browser.mjs';
import { Daemon } from './daemon.mjs';

export async function openFreshPage() {
  const daemon = await new Daemon().start();
  const browser = await launchBrowser();
  const page = await newPage(browser);
  await page.goto(daemon.url);
  await openFirstTerminal(page);
  return { daemon, browser, page };
}

export async function closeFreshPage({ browser, daemon }) {
  await browser?.close();
  await daemon?.cleanup();
}
