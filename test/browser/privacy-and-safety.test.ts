import { describe, expect, it } from 'vitest';
import { useDemoInChromium } from '../support/demo-in-chromium.js';
import { episodeTitles, factTexts, openDemo, openTab, requestSummary, waitForStatus, withMemory } from './demo-page.js';

/**
 * Privacy: over a whole offline session (model load, sample conversation,
 * manual memories, recall, a task, export) the page and its worker request
 * nothing but the demo server on localhost, and only the paths the demo
 * serves (no telemetry endpoint, no LLM call without an LLM).
 * Safety: memory text that looks like HTML is shown as text, never run.
 */
const XSS = '<img src=x onerror=alert(1)>';
const XSS_EPISODE = '<script>alert(2)</script><b onmouseover=alert(3)>Deployed the parser</b>';

const demo = useDemoInChromium();

describe('privacy and safety of the demo page', () => {
  it('shows HTML-looking memory text as text everywhere, runs none of it, and talks to nobody but localhost', async () => {
    const session = await openDemo(demo.browser, demo.url);
    const { page } = session;

    // Typed into the page by a person: a fact and an episode carrying markup.
    await page.fill('#add-text', XSS);
    await page.fill('#add-tags', 'html');
    await page.click('#add-button');
    await openTab(page, 'Facts', 'Facts (1)');
    await page.selectOption('#add-kind', 'episode');
    await page.fill('#add-text', XSS_EPISODE);
    await page.click('#add-button');
    await openTab(page, 'Episodes', 'Episodes (1)');

    // Shown verbatim as text in the Facts tab, the Episodes tab and the recall explorer.
    await openTab(page, 'Facts', 'Facts (1)');
    expect(await factTexts(page)).toEqual([XSS]);
    expect(await page.locator('#tab-body img, #tab-body script, #tab-body b').count()).toBe(0);
    await openTab(page, 'Episodes', 'Episodes (1)');
    expect(await episodeTitles(page)).toEqual([XSS_EPISODE]);
    expect(await page.locator('#tab-body img, #tab-body script, #tab-body b').count()).toBe(0);
    await openTab(page, 'Recall', 'Recall explorer');
    await page.fill('#recall-query', 'img src onerror alert');
    await page.click('#recall-button');
    await page.locator('#recall-results tr.hit').first().waitFor();
    expect(await page.locator('#recall-results tr.hit td:first-child').allTextContents()).toContain(XSS);
    expect(await page.locator('#recall-context').textContent()).toContain(XSS);
    expect(await page.locator('#tab-body img, #tab-body script, #tab-body b').count()).toBe(0);
    // Hovering where the markup would be does nothing either.
    await page.locator('#recall-results tr.hit td:first-child').first().hover();

    // The rest of an offline session, for the privacy log.
    await page.click('#load-sample');
    await waitForStatus(page, 'Sample conversation loaded');
    await page.click('#run-task');
    await waitForStatus(page, 'Sample task completed');
    await openTab(page, 'Data', 'Export and import');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
    expect(await download.failure()).toBeNull();
    // The store holds the exact text, unescaped: escaping is the page's job, not a change to the data.
    expect(await withMemory(page, async (memory) => (await memory.facts.list({ userId: 'demo-user', tags: ['html'] })).map((f) => f.text), null)).toEqual([XSS]);

    // Nothing ran: no dialog, no request for the image, no script error.
    await page.waitForTimeout(300);
    expect(session.dialogs).toEqual([]);
    expect(session.errors).toEqual([]);
    const { paths, foreignHosts } = requestSummary(session.requests);
    expect(paths.filter((p) => p === '/x' || p.endsWith('/x'))).toEqual([]);

    // Privacy: only localhost, only what the demo serves. The worker's own requests are in this log too.
    expect(foreignHosts).toEqual([]);
    expect(paths.some((p) => p.startsWith('/models/'))).toBe(true);
    // (sw.js, manifest.webmanifest and icon.svg: the offline PWA's own files.)
    const served = /^\/($|index\.html$|assets\/|models\/|ort\/|api\/config$|sw\.js$|manifest\.webmanifest$|icon\.svg$)/;
    expect(paths.filter((p) => !served.test(p))).toEqual([]);
    // Offline mode: the LLM endpoint was never called.
    expect(paths).not.toContain('/api/llm');
    await session.context.close();
  });
});
