/**
 * Which work makes the device page's start long task (issue 45): the device
 * page (bench/browser/device/dist, built) opened once per role under the
 * 4× DevTools throttle on a fresh profile, with a Long Animation Frames
 * observer registered before the page's first script (an init script), and
 * the classic long tasks beside it. Prints each frame over 50 ms with its
 * scripts[] attribution (invoker, source URL, compile/parse vs execution),
 * and the first answer. Workers are not capped here: this is about the page.
 *
 *   npx tsx bench/browser/device-loaf.ts [--runs 2] [--roles engram,floor] [--root <dir of a built page>]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/support/browser.js';
import { startDeviceServer } from './device/server.js';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '2' }, roles: { type: 'string', default: 'engram,floor' }, root: { type: 'string' }, rate: { type: 'string', default: '4' }, profile: { type: 'boolean', default: false } } });
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
const server = await startDeviceServer(join(tmpdir(), 'engram-device-no-profile'), args.root ? () => args.root! : undefined);

interface Frame {
  startTime: number;
  duration: number;
  blockingDuration: number;
  renderStart: number;
  styleAndLayoutStart: number;
  scripts: { invoker: string; invokerType: string; sourceURL: string; sourceFunctionName: string; sourceCharPosition: number; startTime: number; duration: number; forcedStyleAndLayoutDuration: number; executionStart: number }[];
}

console.log(`device-loaf: ${args.rate}× page (CDP), ${cpus().length} cores, load ${load()}`);
try {
  for (let run = 0; run < Number(args.runs); run++) {
    for (const role of args.roles.split(',')) {
      const dir = mkdtempSync(join(tmpdir(), 'engram-loaf-'));
      const context = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS] });
      try {
        await context.addInitScript(() => {
          const g = globalThis as unknown as { loaf: unknown[]; longtasks: unknown[] };
          g.loaf = [];
          g.longtasks = [];
          new PerformanceObserver((list) => g.loaf.push(...list.getEntries().map((e) => e.toJSON()))).observe({ type: 'long-animation-frame', buffered: true });
          new PerformanceObserver((list) => g.longtasks.push(...list.getEntries().map((e) => ({ start: e.startTime, duration: e.duration, attribution: (e as unknown as { attribution: { containerType: string; name: string }[] }).attribution?.map((a) => a.name) })))).observe({ type: 'longtask', buffered: true });
        });
        const page = context.pages()[0] ?? (await context.newPage());
        const cdp = await context.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: Number(args.rate) });
        if (args.profile) {
          await cdp.send('Profiler.enable');
          await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
          await cdp.send('Profiler.start');
        }
        await page.goto(`${server.url}?role=${role}&name=loaf-${role}&q=${encodeURIComponent('what about the weather?')}`);
        await page.waitForFunction(() => (globalThis as unknown as { deviceStart?: { done: boolean } }).deviceStart?.done, undefined, { timeout: 600_000 });
        await page.waitForTimeout(300);
        const got = await page.evaluate(() => {
          const g = globalThis as unknown as { loaf: Frame[]; longtasks: { start: number; duration: number; attribution: string[] }[]; deviceStart: { first: number; ready: number; error?: string } };
          const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
          const res = performance.getEntriesByType('resource').map((r) => ({ name: r.name.replace(/^.*\//, ''), start: Math.round(r.startTime), end: Math.round((r as PerformanceResourceTiming).responseEnd) }));
          return { loaf: g.loaf, longtasks: g.longtasks, start: g.deviceStart, nav: { responseEnd: nav.responseEnd, domInteractive: nav.domInteractive, domContentLoaded: nav.domContentLoadedEventEnd, load: nav.loadEventEnd }, res };
        });
        if (args.profile) printProfile((await cdp.send('Profiler.stop')).profile as unknown as Profile);
        console.log(`\n== ${role} run ${run + 1}: first answer ${Math.round(got.start.first)} ms (ready ${Math.round(got.start.ready)})${got.start.error ? ` ERROR ${got.start.error}` : ''}; load ${load()}`);
        console.log(`  navigation: response end ${Math.round(got.nav.responseEnd)}, DOM interactive ${Math.round(got.nav.domInteractive)}, DOMContentLoaded end ${Math.round(got.nav.domContentLoaded)}, load end ${Math.round(got.nav.load)}`);
        console.log(`  resources: ${got.res.map((r) => `${r.name} ${r.start}→${r.end}`).join('; ')}`);
        for (const t of got.longtasks) console.log(`  longtask ${Math.round(t.start)} +${Math.round(t.duration)} ms (${t.attribution?.join(',')})`);
        for (const f of got.loaf.filter((f) => f.duration > 50)) {
          console.log(`  LoAF ${Math.round(f.startTime)} +${Math.round(f.duration)} ms (blocking ${Math.round(f.blockingDuration)}; render at ${Math.round(f.renderStart - f.startTime)}, style/layout at ${Math.round(f.styleAndLayoutStart - f.startTime)})`);
          for (const s of f.scripts) console.log(`    script ${s.invokerType} "${s.invoker}" ${s.sourceURL.replace(/^.*\//, '')}${s.sourceFunctionName ? ` ${s.sourceFunctionName}@${s.sourceCharPosition}` : ''}: at ${Math.round(s.startTime - f.startTime)}, ${Math.round(s.duration)} ms (compile/parse before execution ${Math.round(s.executionStart - s.startTime)} ms)`);
        }
      } finally {
        await context.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
} finally {
  await server.close();
}

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}
/** Self and inclusive sampled ms per function, the top 25 by inclusive time (page thread only, throttled, so 4× inflated). */
function printProfile(profile: Profile): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  const key = (id: number) => {
    const f = byId.get(id)!.callFrame;
    return `${f.functionName || '(anon)'} ${f.url.replace(/^.*\//, '')}:${f.lineNumber}:${f.columnNumber}`;
  };
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    self.set(key(id), (self.get(key(id)) ?? 0) + ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = key(at);
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + ms);
    }
  });
  for (const [k, ms] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  profile ${ms.toFixed(0).padStart(5)} incl ${(self.get(k) ?? 0).toFixed(0).padStart(5)} self  ${k}`);
}
