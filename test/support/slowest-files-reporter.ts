import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the slowest test files at the end of a run (after the default
 * reporter's summary), so every `npm test` shows where the time goes. A
 * file's time is its import plus its tests and hooks; files run in parallel
 * workers, so these add up to more than the run's wall time.
 */
export default class SlowestFilesReporter implements Reporter {
  private readonly count = 10;

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const rows = testModules
      .map((m) => {
        const d = m.diagnostic();
        return { file: m.moduleId.replace(`${process.cwd()}/`, ''), ms: d.collectDuration + d.duration, state: m.state() };
      })
      .sort((a, b) => b.ms - a.ms)
      .slice(0, this.count);
    if (rows.length === 0) return;
    const width = Math.max(...rows.map((r) => r.file.length));
    const lines = rows.map((r) => `  ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${r.file.padEnd(width)}${r.state === 'failed' ? '  (failed)' : ''}`);
    process.stdout.write(`\nSlowest ${rows.length} test files (import + tests):\n${lines.join('\n')}\n`);
  }
}
