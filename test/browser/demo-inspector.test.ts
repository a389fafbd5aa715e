import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoServer } from '../../demo/server.js';
import { SAMPLE_CONVERSATION } from '../../demo/src/sample-conversation.js';
import { launchChromium, SAFETY_NET_MS } from '../support/browser.js';
import { episodeTitles, factTexts, openDemo, openTab, requestSummary, waitForStatus, waitReady, withMemory } from './demo-page.js';

/**
 * The offline demo (no LLM) as a person uses it: the sample conversation forms
 * facts and episodes that the inspector shows, they survive a reload
 * (IndexedDB), and an export imported into an empty database restores them.
 */
let browser: Browser;
let server: Awaited<ReturnType<typeof startDemoServer>>;
let downloads: string;
beforeAll(async () => {
  server = await startDemoServer();
  browser = await launchChromium();
  downloads = await mkdtemp(join(tmpdir(), 'engram-demo-'));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (downloads) await rm(downloads, { recursive: true, force: true });
});

// What the recorded replies say must be stored: the last version of each fact, and both episodes.
const superseded = new Set(SAMPLE_CONVERSATION.map((t) => t.supersedes).filter(Boolean));
const expectedFacts = SAMPLE_CONVERSATION.flatMap((t) => t.extract.facts.map((f) => f.text)).filter((text) => !superseded.has(text));
const expectedEpisodes = SAMPLE_CONVERSATION.flatMap((t) => (t.episode ? [t.episode.goal as string] : []));

describe('the demo inspector, offline, in Chromium', () => {
  it('shows the sample conversation forming memories, keeps them across a reload, and restores them from an export', async () => {
    const session = await openDemo(browser, server.url);
    const { page } = session;

    // No LLM: the page says so, chat is off, everything else is there.
    await expect(page.locator('#no-llm').textContent()).resolves.toContain('No LLM is configured');
    expect(await page.locator('#chat-input').isDisabled()).toBe(true);
    expect(await page.locator('#status').textContent()).toContain('no LLM configured (offline mode)');

    await page.click('#load-sample');
    await waitForStatus(page, 'Sample conversation loaded');
    // Every reply on screen is labelled as recorded.
    expect(await page.locator('#messages .msg.assistant .recorded').allTextContents()).toEqual(SAMPLE_CONVERSATION.map(() => ' (recorded)'));

    await openTab(page, 'Facts', `Facts (${expectedFacts.length})`);
    expect((await factTexts(page)).sort()).toEqual([...expectedFacts].sort());
    // The changed goal kept its earlier version in the history.
    await page.click('tr.fact:has-text("3 hours 45") button.history');
    await page.locator('tr.fact:has-text("3 hours 45") + tr li').nth(1).waitFor();
    const history = await page.locator('tr.fact:has-text("3 hours 45") + tr li').allTextContents();
    expect(history).toHaveLength(2);
    expect(history[0]).toContain('under four hours. — retired');
    expect(history[1]).toContain('3 hours 45 minutes. — current');

    // The follow-up episode is auto-chained to the first: one arc of two, root first.
    await openTab(page, 'Episodes', `Episodes (${expectedEpisodes.length})`);
    expect(await episodeTitles(page)).toEqual(expectedEpisodes);
    expect(await page.locator('#episodes .arc.chained .step').count()).toBe(2);
    await page.fill('#replay-topic', 'analytics database');
    await page.click('#replay-button');
    await page.locator('#replay').getByText(expectedEpisodes[1]!).waitFor();
    const replay = await page.locator('#replay').textContent();
    expect(replay!.indexOf(expectedEpisodes[0]!)).toBeGreaterThanOrEqual(0);
    expect(replay!.indexOf(expectedEpisodes[1]!)).toBeGreaterThan(replay!.indexOf(expectedEpisodes[0]!));

    // Recall explorer: each hit with its score parts, and the prompt context.
    await openTab(page, 'Recall', 'Recall explorer');
    await page.fill('#recall-query', 'which database do we use for analytics?');
    await page.click('#recall-button');
    await page.locator('#recall-results tr.hit').first().waitFor();
    expect(await page.locator('#recall-results th').allTextContents()).toEqual(['memory', 'type', 'score', 'similarity', 'keyword', 'recency', 'importance', 'pinned']);
    const top = await page.locator('#recall-results tr.hit').first().locator('td').allTextContents();
    expect(top[0]).toContain('Choose the');
    expect(top[1]).toBe('episode');
    for (const cell of top.slice(2, 7)) expect(Number.isFinite(Number(cell))).toBe(true);
    expect(await page.locator('#recall-context').textContent()).toContain('Profile: Ana; city Porto');

    // A sample agent task through memory.tasks: reward parts, reflection, patterns.
    await page.click('#run-task');
    await waitForStatus(page, 'Sample task completed');
    await openTab(page, 'Tasks', 'Task episodes (1)');
    expect(await page.locator('.task table.reward th').allTextContents()).toEqual(['total', 'base', 'abstention', 'efficiency', 'complexity', 'quality', 'learning']);
    expect(await page.locator('.task li').count()).toBeGreaterThan(0);
    expect(await page.locator('#patterns tr').count()).toBeGreaterThan(1);

    // Background jobs and the event log.
    await openTab(page, 'Activity', 'Event log');
    const eventTypes = await page.locator('#events tr td:nth-child(2)').allTextContents();
    expect(eventTypes.filter((t) => t === 'extraction')).toHaveLength(SAMPLE_CONVERSATION.length);
    expect(eventTypes.filter((t) => t === 'episode')).toHaveLength(expectedEpisodes.length);

    // Storage used and persistent storage.
    await openTab(page, 'Data', 'Storage');
    expect(await page.locator('#storage').textContent()).toMatch(/[\d.]+ MB used of [\d.]+ GB; persistent: (yes|no)/);
    await page.click('#persist');
    await page.locator('#data-result').getByText(/persistent storage|Storage is persistent/).waitFor();

    // A reload reads everything back from IndexedDB.
    await page.reload();
    await waitReady(page);
    await openTab(page, 'Facts', `Facts (${expectedFacts.length})`);
    expect((await factTexts(page)).sort()).toEqual([...expectedFacts].sort());
    await openTab(page, 'Episodes', `Episodes (${expectedEpisodes.length})`);
    expect(await episodeTitles(page)).toEqual(expectedEpisodes);

    // Export to a file, then delete everything for the user (after the confirm dialog).
    await openTab(page, 'Data', 'Export and import');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
    const exported = join(downloads, download.suggestedFilename());
    await download.saveAs(exported);
    expect(download.suggestedFilename()).toBe('engram-demo-user.jsonl');
    expect((await readFile(exported, 'utf8')).split('\n').length).toBeGreaterThan(expectedFacts.length + expectedEpisodes.length);
    session.answerNextDialog((dialog) => dialog.accept());
    await page.click('#forget');
    await page.locator('#data-result').getByText('Deleted').waitFor();
    expect(session.dialogs).toEqual(['confirm: Delete every memory of demo-user?']);
    await openTab(page, 'Facts', 'No facts yet.');
    await openTab(page, 'Episodes', 'No episodes yet.');
    expect(await withMemory(page, async (memory) => (await memory.info()).indexed, null)).toBe(0);

    // Import the file into a database that has never existed (a fresh browser profile).
    const fresh = await openDemo(browser, server.url);
    await openTab(fresh.page, 'Facts', 'No facts yet.');
    await openTab(fresh.page, 'Data', 'Export and import');
    await fresh.page.setInputFiles('#import-file', exported);
    // The Data tab redraws 50 ms after the import (app.refresh), replacing the result line with an empty one:
    // record every text the line shows, so a slow machine cannot miss it between two polls.
    await fresh.page.evaluate(() => {
      const shown: string[] = [];
      (window as unknown as { __dataResults: string[] }).__dataResults = shown;
      new MutationObserver(() => {
        const text = document.getElementById('data-result')?.textContent;
        if (text) shown.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await fresh.page.click('#import');
    await fresh.page.waitForFunction(() => (window as unknown as { __dataResults: string[] }).__dataResults.some((t) => t.startsWith('Import')), null, { timeout: SAFETY_NET_MS });
    expect(await fresh.page.evaluate(() => (window as unknown as { __dataResults: string[] }).__dataResults.find((t) => t.startsWith('Import')))).toBe(`Imported ${expectedFacts.length + superseded.size} facts and ${expectedEpisodes.length} episodes.`);
    await openTab(fresh.page, 'Facts', `Facts (${expectedFacts.length})`);
    expect((await factTexts(fresh.page)).sort()).toEqual([...expectedFacts].sort());
    await fresh.page.click('tr.fact:has-text("3 hours 45") button.history');
    await fresh.page.locator('tr.fact:has-text("3 hours 45") + tr li').nth(1).waitFor();
    expect(await fresh.page.locator('tr.fact:has-text("3 hours 45") + tr li').count()).toBe(2);
    await openTab(fresh.page, 'Episodes', `Episodes (${expectedEpisodes.length})`);
    expect(await episodeTitles(fresh.page)).toEqual(expectedEpisodes);
    expect(await fresh.page.locator('#episodes .arc.chained .step').count()).toBe(2);
    // The imported memories are searchable, not just listed.
    const hits = await withMemory(fresh.page, async (memory) => (await memory.recall('Where does the user live?', { userId: 'demo-user', k: 1, touch: false })).map((h) => h.memory.text), null);
    expect(hits).toEqual(['The user lives in Porto.']);

    for (const s of [session, fresh]) {
      expect(requestSummary(s.requests).foreignHosts).toEqual([]);
      expect(s.errors).toEqual([]);
    }
    await fresh.context.close();
    await session.context.close();
  });
});
