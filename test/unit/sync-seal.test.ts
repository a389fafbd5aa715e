import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { fromBase64Url, toBase64Url } from '../../src/replication/base64url.js';
import type { Change } from '../../src/replication/change.js';
import { formatHlc } from '../../src/replication/hlc.js';
import { openRow, sealChange } from '../../src/replication/seal.js';
import { createSyncKey, spaceTag } from '../../src/replication/sync-key.js';
import type { SealedRow } from '../../src/replication/protocol.js';

const SECRET = 'k3Jt9v0bXw2yQ5rLm8nC1dF4gH7jK0pS'; // 32 bytes of test secret
const hlc = (wall: number, device = 'phone') => formatHlc({ wall, counter: 0, device });

const vector = new Float32Array([0.1, -0.25, 1 / 3, 1e-30, -7.5]);
const put: Change = {
  kind: 'fact',
  id: 'fact-lisbon-1',
  op: 'put',
  hlc: hlc(1_700_000_000_000),
  device: 'phone',
  record: { userId: 'user-42', text: 'The user moved to Lisbon in March', speaker: 'Ana' },
  vector: { embedder: 'static/potion-base-4M', values: vector },
};
const del: Change = { kind: 'episode', id: 'ep-9', op: 'delete', hlc: hlc(1_700_000_000_500), device: 'phone' };

describe('sync keys', () => {
  it('two devices given the same secret, passphrase or base key make the same key (same tag, and each opens the other\'s rows)', async () => {
    const [a, b] = await Promise.all([createSyncKey({ secret: SECRET }), createSyncKey({ secret: new TextEncoder().encode(SECRET) })]);
    expect(a.keyTag).toBe(b.keyTag);
    expect(await openRow(b, 'space-1', await sealChange(a, { space: 'space-1', seq: 1, change: put }))).toMatchObject({ id: put.id });

    const [p, q] = await Promise.all([
      createSyncKey({ passphrase: 'correct horse battery staple', salt: 'space-1', iterations: 100_000 }),
      createSyncKey({ passphrase: 'correct horse battery staple', salt: 'space-1', iterations: 100_000 }),
    ]);
    expect(p.keyTag).toBe(q.keyTag);
    expect(p.keyTag).not.toBe(a.keyTag);
    const otherSalt = await createSyncKey({ passphrase: 'correct horse battery staple', salt: 'space-2', iterations: 100_000 });
    expect(otherSalt.keyTag).not.toBe(p.keyTag);

    const base = await crypto.subtle.importKey('raw', new TextEncoder().encode(SECRET), 'HKDF', false, ['deriveKey']);
    const fromKey = await createSyncKey({ key: base });
    // The same bytes as a CryptoKey or as a secret give the same key.
    expect(fromKey.keyTag).toBe(a.keyTag);
  });

  it('takes an AES-GCM + HMAC pair the app manages', async () => {
    const encryptionKey = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    const hashKey = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const key = await createSyncKey({ encryptionKey, hashKey });
    expect(key.encryption).toBe(encryptionKey);
    expect(await openRow(key, 's', await sealChange(key, { space: 's', seq: 3, change: del }))).toEqual(del);
  });

  it('refuses a short secret, a weak PBKDF2 count and keys of the wrong kind with ValidationErrors naming the field', async () => {
    await expect(createSyncKey({ secret: 'hunter2' })).rejects.toThrow(ValidationError);
    await expect(createSyncKey({ secret: 'hunter2' })).rejects.toThrow(/32 bytes/);
    await expect(createSyncKey({ passphrase: 'p', salt: 's', iterations: 1000 })).rejects.toThrow(/iterations/);
    const aes = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    await expect(createSyncKey({ key: aes })).rejects.toThrow(/HKDF/);
    const hmac = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    await expect(createSyncKey({ encryptionKey: hmac, hashKey: aes } as never)).rejects.toThrow(ValidationError);
  });
});

describe('sealing a change', () => {
  it('opens back to the same change: record, clocks and the exact float32 vector', async () => {
    const key = await createSyncKey({ secret: SECRET });
    const withClocks: Change = { ...put, clocks: { city: hlc(5), name: hlc(6) } } as Change;
    const opened = await openRow(key, 'space-1', await sealChange(key, { space: 'space-1', seq: 1, change: withClocks }));
    expect(opened).toEqual(withClocks);
    expect(opened?.op === 'put' && Array.from(opened.vector!.values)).toEqual(Array.from(vector));
    expect(await openRow(key, 'space-1', await sealChange(key, { space: 'space-1', seq: 2, change: del }))).toEqual(del);
  });

  it('the hub sees routing metadata only: no kind, id, text, vector, speaker or user id', async () => {
    const key = await createSyncKey({ secret: SECRET });
    const row = await sealChange(key, { space: 'space-1', seq: 7, change: put });
    expect(Object.keys(row).sort()).toEqual(['ciphertext', 'device', 'hlc', 'keyHash', 'nonce', 'op', 'seq']);
    const visible = JSON.stringify(row);
    for (const secret of ['fact', 'fact-lisbon-1', 'Lisbon', 'user-42', 'Ana', 'potion', 'space-1']) expect(visible).not.toContain(secret);
    // The vector's bytes are not there either.
    expect(visible).not.toContain(toBase64Url(new Uint8Array(vector.buffer)).slice(0, 12));
  });

  it('pads the plaintext: texts of 10 and 200 characters give ciphertexts of the same size', async () => {
    const key = await createSyncKey({ secret: SECRET });
    const sized = (text: string) => sealChange(key, { space: 's', seq: 1, change: { ...del, op: 'put', record: { text } } as Change });
    const [short, long] = await Promise.all([sized('x'.repeat(10)), sized('x'.repeat(200))]);
    expect(short.ciphertext.length).toBe(long.ciphertext.length);
  });

  it('the same change sealed twice gives different ciphertexts (fresh nonces) and the same record hash', async () => {
    const key = await createSyncKey({ secret: SECRET });
    const [one, two] = await Promise.all([sealChange(key, { space: 's', seq: 1, change: put }), sealChange(key, { space: 's', seq: 1, change: put })]);
    expect(one.nonce).not.toBe(two.nonce);
    expect(one.ciphertext).not.toBe(two.ciphertext);
    expect(one.keyHash).toBe(two.keyHash);
    const other = await sealChange(key, { space: 's', seq: 1, change: { ...put, id: 'fact-lisbon-2' } });
    expect(other.keyHash).not.toBe(one.keyHash);
  });

  it('refuses a change whose clock was made by another device, with a ValidationError', async () => {
    const key = await createSyncKey({ secret: SECRET });
    await expect(sealChange(key, { space: 's', seq: 1, change: { ...del, hlc: hlc(1, 'laptop') } })).rejects.toThrow(ValidationError);
  });
});

describe('opening a row refuses every alteration', () => {
  const flip = (text: string, at: number) => {
    const bytes = fromBase64Url(text)!;
    bytes[at] = bytes[at]! ^ 0x01;
    return toBase64Url(bytes);
  };
  const cases: [string, (row: SealedRow) => SealedRow][] = [
    ['one bit of the ciphertext', (row) => ({ ...row, ciphertext: flip(row.ciphertext, 5) })],
    ['one bit of the GCM tag', (row) => ({ ...row, ciphertext: flip(row.ciphertext, fromBase64Url(row.ciphertext)!.length - 1) })],
    ['the nonce', (row) => ({ ...row, nonce: flip(row.nonce, 0) })],
    ['the device', (row) => ({ ...row, device: 'laptop' })],
    ['the sequence', (row) => ({ ...row, seq: row.seq + 1 })],
    ['the operation', (row) => ({ ...row, op: 'delete' })],
    ['the clock', (row) => ({ ...row, hlc: hlc(1_800_000_000_000) })],
    ['the record hash', (row) => ({ ...row, keyHash: flip(row.keyHash, 0) })],
  ];
  for (const [what, alter] of cases) {
    it(`an altered ${what.replace(/^(one bit of )?the /, '')} does not open`, async () => {
      const key = await createSyncKey({ secret: SECRET });
      const row = await sealChange(key, { space: 'space-1', seq: 4, change: put });
      expect(await openRow(key, 'space-1', row)).toMatchObject({ id: put.id });
      expect(await openRow(key, 'space-1', alter(row))).toBeUndefined();
    });
  }

  it('a row sealed for another space, or under another key, does not open', async () => {
    const key = await createSyncKey({ secret: SECRET });
    const other = await createSyncKey({ secret: SECRET.replace('k', 'K') });
    const row = await sealChange(key, { space: 'space-1', seq: 1, change: put });
    expect(await openRow(key, 'space-2', row)).toBeUndefined();
    expect(await openRow(other, 'space-1', row)).toBeUndefined();
    expect(await spaceTag(key, 'space-1')).not.toBe(await spaceTag(key, 'space-2'));
  });
});
