/** The console as a browser sees it: the console's process, Debian's Chromium through playwright-core, the page. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { repoRoot } from '@retry-safe/scenarios';
import { freePort, startServiceProcess, type ServiceProcess } from '@retry-safe/testing';

/** Debian's `chromium` (scripts/setup.sh installs it for the tests): nothing downloads a browser. */
const CHROMIUM = '/usr/bin/chromium';

/**
 * Where the screenshots go: docs/images (the docs show them) with `UPDATE_SCREENSHOTS=1`, else a temporary folder,
 * so a test run leaves the working tree as it found it.
 */
export const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? join(repoRoot(), 'docs', 'images')
    : mkdtempSync(join(tmpdir(), 'retry-safe-console-'));

/** A running console and a page on it, with every error the page logged. */
export interface ConsoleSession {
  readonly page: Page;
  /** Console errors and uncaught exceptions of the page. */
  readonly errors: string[];
  close(): Promise<void>;
}

/** Starts the console (which starts its stack) and opens its page in a headless Chromium. */
export async function openConsole(): Promise<ConsoleSession> {
  const port = await freePort();
  const console: ServiceProcess = await startServiceProcess({
    name: 'console',
    entry: join(repoRoot(), 'apps', 'console', 'dist', 'main.js'),
    port,
    env: { CONSOLE_PORT: String(port), LOG_LEVEL: 'warn' },
    telemetry: false,
  });
  let browser: Browser | undefined;
  try {
    // As root (CI) Chromium's sandbox cannot start; the page is our own, on loopback.
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(console.url);
    const opened = browser;
    return {
      page,
      errors,
      close: async () => {
        await opened.close();
        await console.kill('SIGTERM');
      },
    };
  } catch (error) {
    await browser?.close();
    await console.kill('SIGTERM');
    throw error;
  }
}

/** Presses Tab until the control named `name` has the focus (it is reachable by keyboard), at most 60 times. */
export async function tabTo(page: Page, name: string): Promise<void> {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    const focused = page.locator(':focus');
    const label = (await focused.getAttribute('aria-label')) ?? (await focused.textContent())?.trim();
    if (label === name) return;
  }
  throw new Error(`"${name}" is not reachable with Tab`);
}

/** The measured cell of `design`'s row under `column`. */
export function measured(page: Page, design: string, column: string): Promise<string | null> {
  return page
    .getByRole('row', { name: new RegExp(`^${design}`) })
    .locator(`td[data-column="${column}"] .measured`)
    .getAttribute('data-measured');
}
