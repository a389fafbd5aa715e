import { afterEach, describe, expect, it, vi } from 'vitest';
import { withThousands } from '../../src/text/thousands.js';

describe('withThousands', () => {
  it("writes an integer as toLocaleString('en-US') does", () => {
    for (const n of [0, 7, 999, 1000, 12_345, 100_000, 999_999, 1_000_000, 1_234_567_890, -1, -1000, -987_654, Number.MAX_SAFE_INTEGER]) {
      expect(withThousands(n)).toBe(n.toLocaleString('en-US'));
    }
  });
});

describe("engram's page entry at start-up", () => {
  afterEach(() => vi.restoreAllMocks());

  it('formats no number through the platform locale data while its modules evaluate', async () => {
    // toLocaleString's first call loads the number-formatting data: on a 4× throttled phone-class page that was a
    // long task of its own inside the entry's evaluation (bench/results/device-open-2-2026-11-28.txt).
    const toLocale = vi.spyOn(Number.prototype, 'toLocaleString');
    const numberFormat = vi.spyOn(Intl, 'NumberFormat');
    vi.resetModules();
    await import('../../src/index.js');
    expect(toLocale).not.toHaveBeenCalled();
    expect(numberFormat).not.toHaveBeenCalled();
  });
});
