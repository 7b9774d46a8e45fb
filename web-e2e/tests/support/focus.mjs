// Where the keyboard focus is, described the way the keyboard tests reason about it.

/** The focused element: its area (terminal, tab, session, …), the tab or session it belongs to, and its name. */
export const focused = (page) => page.evaluate(() => {
  const e = document.activeElement;
  if (!e || e === document.body) return { area: 'none' };
  const name = e.getAttribute('aria-label') || e.textContent?.trim().replace(/\s+/g, ' ').slice(0, 40) || '';
  let area = 'other';
  if (e.closest('.xterm')) area = 'terminal';
  else if (e.getAttribute('role') === 'tab') area = 'tab';
  else if (e.matches('button.session')) area = 'session';
  else if (e.closest('.dialog')) area = 'dialog';
  return {
    area,
    testid: e.dataset.testid ?? null,
    tabId: e.closest('[data-tab-id]')?.dataset.tabId ?? null,
    sessionId: e.dataset.sessionId ?? null,
    name,
    outline: getComputedStyle(e).outlineStyle,
  };
});

/** Presses `key`, then waits a frame so the page's render has run. */
export async function press(page, key) {
  await page.keyboard.press(key);
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve())));
}

/** Waits until the focus matches `predicate`; returns where it is. */
export async function waitForFocus(page, predicate, description, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await focused(page);
    if (predicate(last)) return last;
    await page.waitForTimeout(50);
  }
  throw new Error(`timed out waiting for the focus: ${description}; it is on ${JSON.stringify(last)}`);
}
