import { SyncError } from '../errors.js';
import type { Change } from './change.js';
import type { DeviceId } from './device-id.js';
import type { PullResponse, PulledRow } from './protocol.js';
import type { PullState } from './pull-state.js';
import { openRow } from './seal.js';
import { spaceTag, type SyncKey } from './sync-key.js';

export interface OpenedBatch {
  /** The other devices' changes, in the hub's order, all opened and verified. */
  changes: Change[];
  /** The state to store with them: the next cursor, and the sequences now taken. */
  state: PullState;
}

/**
 * Verifies and opens one pulled batch, all or nothing: if any row is
 * refused, this throws a SyncError naming it and nothing of the batch is
 * returned, so nothing of it can be applied. In order:
 * 1. the batch's key tag must be this key's ('wrong_key': this device has
 *    the wrong key, or the hub sent another space's rows sealed under
 *    another), and its space tag this space's ('foreign_space');
 * 2. cursors must rise from the one asked after ('replayed' at or below it,
 *    'reordered' below the row before), and each device's sequence numbers
 *    must rise above the last one taken from it ('replayed') and within the
 *    batch ('reordered'; the same one twice is 'replayed');
 * 3. every row must open under the key, with the space and its clear fields
 *    as associated data ('tampered').
 * The device's own rows (a hub may hand them back) are verified like the
 * others and then left out of `changes`.
 */
export async function openBatch(key: SyncKey, input: { space: string; device: DeviceId; state: PullState; response: PullResponse }): Promise<OpenedBatch> {
  const { space, device, state, response } = input;
  const rows = response.rows;
  const refuse = (reason: SyncError['reason'], message: string, details: Record<string, unknown> = {}) =>
    new SyncError(`${message} Nothing from this batch was applied.`, { reason, ...details });

  if (rows.length > 0 && (response.keyTag === null || response.spaceTag === null)) {
    throw refuse('malformed', 'The hub sent rows without the key and space tags they were pushed with: it does not speak the sync protocol.');
  }
  if (response.keyTag !== null && response.keyTag !== key.keyTag) {
    throw refuse('wrong_key', "The space's rows were sealed under another key than this device's: give this device the key the space's other devices use (or the hub answered with another space's rows).", { keyTag: response.keyTag });
  }
  if (response.spaceTag !== null && response.spaceTag !== (await spaceTag(key, space))) {
    throw refuse('foreign_space', `The hub answered with rows of another space than "${space}": check the hub's authorization (it must map this device's credentials to its own space).`);
  }

  const seen = { ...state.seen };
  const inBatch = new Map<string, number>();
  let previous = BigInt(state.cursor);
  const rowLabel = (row: PulledRow, index: number) => `Row ${index} of the hub's answer (device "${row.device}", sequence ${row.seq}, cursor ${row.cursor})`;
  for (const [index, row] of rows.entries()) {
    const details = { index, device: row.device, seq: row.seq, cursor: row.cursor };
    const cursor = BigInt(row.cursor);
    if (cursor <= BigInt(state.cursor)) throw refuse('replayed', `${rowLabel(row, index)} is at or before the cursor this device asked after (${state.cursor}): a replay.`, details);
    if (cursor <= previous) throw refuse('reordered', `${rowLabel(row, index)} comes after a row with a later cursor: the hub reordered its rows.`, details);
    previous = cursor;
    const taken = seen[row.device] ?? 0;
    const earlier = inBatch.get(row.device);
    if (earlier === undefined && row.seq <= taken) throw refuse('replayed', `${rowLabel(row, index)} was already taken (this device has taken up to sequence ${taken} from that device): a replay.`, details);
    if (earlier !== undefined && row.seq === earlier) throw refuse('replayed', `${rowLabel(row, index)} appears twice in the batch: a replay.`, details);
    if (earlier !== undefined && row.seq < earlier) throw refuse('reordered', `${rowLabel(row, index)} comes after sequence ${earlier} of the same device: the hub reordered its rows.`, details);
    inBatch.set(row.device, row.seq);
  }
  const next = BigInt(response.next);
  if (next < BigInt(state.cursor)) throw refuse('replayed', `The hub's next cursor (${response.next}) is before the one this device asked after (${state.cursor}): it would hand out rows again.`);
  if (next < previous) throw refuse('malformed', `The hub's next cursor (${response.next}) is before its own last row's (${previous}).`);

  const opened = await Promise.all(rows.map((row) => openRow(key, space, row)));
  const changes: Change[] = [];
  for (const [index, change] of opened.entries()) {
    const row = rows[index]!;
    if (!change) {
      throw refuse('tampered', `${rowLabel(row, index)} does not open under this space's key: it was altered after it was sealed (its ciphertext, nonce, or a field bound to it).`, {
        index,
        device: row.device,
        seq: row.seq,
        cursor: row.cursor,
      });
    }
    if (change.device !== device) changes.push(change);
  }
  for (const [rowDevice, seq] of inBatch) seen[rowDevice] = seq;
  return { changes, state: { cursor: response.next, seen } };
}
