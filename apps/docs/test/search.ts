// The site's search as a reader opens it: once the box has indexed the page (it says "Loading…" until then), a click
// on it, and typing. The click must leave the search field focused; it is waited for and checked, so that a test
// types only once the field has it (typed earlier, on a busy machine, the keys went to the page).
import { expect } from 'vitest';
import type { Page } from 'playwright-core';

/** Opens the search of `page` and resolves once its field has the focus; fails if the click never gives it. */
export async function openSearch(page: Page, timeout = 60_000): Promise<void> {
  await expect.poll(() => page.getByTestId('search-trigger').innerText(), { timeout }).toMatch(/Search/);
  await page.getByTestId('search-trigger').click();
  await expect
    .poll(
      () =>
        page.evaluate(
          () => document.activeElement?.closest('[data-component-name]')?.getAttribute('data-component-name') ?? null,
        ),
      { timeout },
    )
    .toBe('Search/SearchInput');
}
