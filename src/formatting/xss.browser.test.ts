import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS } from '../../test/browser.ts';
import { chromiumForTests } from '../../test/chromium.ts';
import { LINK_REL } from './markdown.ts';
import { FORMATTINGS, renderContent } from './html.ts';
import { ALLOWED_ELEMENTS } from './sanitize.ts';
import { HOSTILE_NAMES, offences, XSS_VECTORS, type DrawnElement } from './xss-corpus.ts';

/**
 * Every corpus source, rendered by both formattings, drawn in a real Chromium as the widget draws a
 * comment (innerHTML inside a shadow root) and at the top of a page: nothing runs, nothing loads,
 * and the live DOM holds only what a comment's HTML may.
 */

/** Undefined on a machine without Chromium: the tests are skipped (npm test says so). */
const CHROMIUM = chromiumForTests();

const PAGE = 'https://blog.example.com/post';

/**
 * Report-only: whatever a comment might run or load is let through and reported, so that the traps
 * below see it run as well.
 */
const WATCHING_POLICY = `default-src 'none'; script-src 'none'; style-src 'none'; img-src ${new URL('/favicon.ico', PAGE)}; frame-src 'none'; form-action 'none'; base-uri 'none'`;

/** What a page's own script could notice of a comment's script: dialogs, console output, errors and policy reports. */
function setTraps(): void {
  const seen: string[] = [];
  (window as unknown as { xssSeen: string[] }).xssSeen = seen;
  for (const name of ['alert', 'confirm', 'prompt', 'print', 'open'] as const) {
    (window as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => void seen.push(`${name}(${args.join(', ')})`);
  }
  for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    console[level] = (...args: unknown[]) => void seen.push(`console.${level}(${args.join(', ')})`);
  }
  Object.defineProperty(window, 'pwned', { set: () => void seen.push('pwned set') });
  addEventListener('securitypolicyviolation', (event) => seen.push(`policy: ${event.violatedDirective} ${event.blockedURI}`), true);
  addEventListener('error', (event) => event instanceof ErrorEvent && seen.push(`error: ${event.message}`), true);
}

interface Drawn {
  name: string;
  elements: DrawnElement[];
  /** Nodes other than elements and text (comments, processing instructions). */
  others: string[];
}

/** Draws each comment twice (in a shadow root, and at the top of the page), nudges every element, and reads the live DOM back. */
async function drawAll(page: Page, comments: Array<{ name: string; html: string }>): Promise<Drawn[]> {
  const containers = await page.evaluate((all) => {
    const roots: Array<{ name: string; root: ParentNode }> = [];
    for (const { name, html } of all) {
      const host = document.body.appendChild(document.createElement('div'));
      const shadow = host.attachShadow({ mode: 'open' });
      shadow.innerHTML = html;
      const plain = document.body.appendChild(document.createElement('div'));
      plain.innerHTML = html;
      roots.push({ name: `${name} (shadow root)`, root: shadow }, { name: `${name} (page)`, root: plain });
    }
    (window as unknown as { xssRoots: typeof roots }).xssRoots = roots;
    return roots.length;
  }, comments);
  expect(containers).toBe(comments.length * 2);
  // Hovered and focused, as events: a handler for them would run now (only an element with
  // attributes can carry one). Links are not followed.
  await page.evaluate(async () => {
    for (const { root } of (window as unknown as { xssRoots: Array<{ root: ParentNode }> }).xssRoots) {
      for (const element of Array.from(root.querySelectorAll('*'))) {
        if (element.attributes.length === 0) continue;
        for (const type of ['pointerover', 'mouseover', 'mouseenter', 'mousemove']) element.dispatchEvent(new MouseEvent(type));
        element.dispatchEvent(new FocusEvent('focus'));
      }
    }
    // Time for loads to fail and their error handlers to run.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await new Promise((resolve) => requestAnimationFrame(resolve));
  });
  const drawn = await page.evaluate(() =>
    (window as unknown as { xssRoots: Array<{ name: string; root: ParentNode }> }).xssRoots.map(({ name, root }) => {
      // Each different element once: a long comment repeats the same few many times.
      const elements = new Set(
        Array.from(root.querySelectorAll('*'), (element) =>
          JSON.stringify({
            name: element.localName,
            attributes: Array.from(element.attributes, (attribute) => [attribute.name, attribute.value]),
            protocol: element instanceof HTMLAnchorElement && element.hasAttribute('href') ? element.protocol : undefined,
          }),
        ),
      );
      const others: string[] = [];
      const walker = document.createTreeWalker(root as Node, NodeFilter.SHOW_COMMENT | NodeFilter.SHOW_PROCESSING_INSTRUCTION | NodeFilter.SHOW_CDATA_SECTION);
      while (walker.nextNode()) others.push(walker.currentNode.nodeName);
      return { name, elements: [...elements], others };
    }),
  );
  return drawn.map(({ elements, ...rest }) => ({ ...rest, elements: elements.map((element) => JSON.parse(element) as DrawnElement) }));
}

/** A blank article page with the traps set: `noticed()` lists everything they and the browser saw. */
async function watchedPage(): Promise<{ page: Page; noticed: () => Promise<string[]> }> {
  const page = await browser.newPage();
  const events: string[] = [];
  // The page is served here, with the policy that reports; anything else a comment asks for is recorded and refused.
  await page.route('**/*', (route) => {
    if (route.request().url() === PAGE) {
      return route.fulfill({
        contentType: 'text/html; charset=utf-8',
        headers: { 'content-security-policy-report-only': WATCHING_POLICY },
        body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>An article</title></head><body></body></html>',
      });
    }
    events.push(`request: ${route.request().url()}`);
    return route.abort();
  });
  page.on('dialog', (dialog) => void events.push(`dialog ${dialog.type()}: ${dialog.message()}`));
  page.on('pageerror', (error) => void events.push(`page error: ${error.message}`));
  page.on('popup', (popup) => void events.push(`popup: ${popup.url()}`));
  await page.addInitScript(setTraps);
  await page.goto(PAGE);
  return { page, noticed: async () => [...events, ...(await page.evaluate(() => (window as unknown as { xssSeen: string[] }).xssSeen))] };
}

const offencesIn = (drawn: Drawn[]) =>
  drawn.flatMap(({ name, elements, others }) =>
    [...elements.flatMap((element) => offences(element, ALLOWED_ELEMENTS, LINK_REL)), ...others.map((node) => `a ${node} node`)].map((offence) => `${name}: ${offence}`),
  );

let browser: Browser;

beforeAll(async () => {
  if (CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!CHROMIUM)('hostile comments in Chromium', () => {
  it('run nothing, load nothing, and leave only allowed elements, attributes and links in the page', async () => {
    const { page, noticed } = await watchedPage();
    const comments = FORMATTINGS.flatMap((formatting) => XSS_VECTORS.map((vector) => ({ name: `${formatting}: ${vector.name}`, html: renderContent(vector.source, formatting, HOSTILE_NAMES) })));
    const drawn = await drawAll(page, comments);
    expect(offencesIn(drawn)).toEqual([]);
    // The checks saw something: links, highlighted code and mentions were drawn.
    const names = new Set(drawn.flatMap(({ elements }) => elements.map((element) => element.name)));
    expect([...names]).toEqual(expect.arrayContaining(['a', 'span', 'code', 'pre', 'p', 'em', 'strong', 's', 'blockquote', 'ul', 'ol', 'li', 'br', 'hr']));
    expect(await noticed()).toEqual([]);
    await page.close();
  }, 60_000);

  it('would notice HTML that was not rendered: the traps and the checks see it run, load and break the rules', async () => {
    const { page, noticed } = await watchedPage();
    const drawn = await drawAll(page, [{ name: 'raw', html: '<img src="https://evil.example/x.png" onerror="alert(1)"><a href="javascript:pwned=1" onmouseover="console.log(2)">x</a><!-- c -->' }]);
    expect(offencesIn(drawn)).toEqual(expect.arrayContaining(['raw (page): element <img>', 'raw (shadow root): link to "javascript:pwned=1" (javascript:)', 'raw (page): a #comment node']));
    expect(await noticed()).toEqual(expect.arrayContaining(['alert(1)', 'console.log(2)', 'request: https://evil.example/x.png', expect.stringMatching(/^policy: script-src/)]));
    await page.close();
  });
});
