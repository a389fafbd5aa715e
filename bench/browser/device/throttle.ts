import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Slowing the page's worker threads down to a phone's. Chromium throttles a
 * page's main thread through the DevTools protocol
 * (`Emulation.setCPUThrottlingRate`: a signal every 200 µs whose handler
 * spins for (rate − 1) × the time the thread ran), but refuses it on a
 * dedicated worker's target ("Operation is only supported for pages, not
 * workers": the emulation agent asserts a page), where engram's engine and
 * the floor run. So each worker thread is capped by the kernel instead: moved
 * into a cgroup (v1 `cpu` controller, which places single threads) whose CFS
 * quota is 1/rate of one core, in the shortest period the kernel allows a
 * quarter of (4 ms; the quota cannot go under 1 ms). A capped thread never
 * runs more than 1/rate of the time, however idle the machine; a thread that
 * already gets less than that because of other load is slowed by the load.
 * The harness checks what each thread really got (./calibrate.ts).
 */
const CPU_CGROUPS = '/sys/fs/cgroup/cpu';
const PERIOD_US = 4000;
/** Chromium names a dedicated worker's thread "DedicatedWorker thread"; Linux keeps 15 characters. */
const WORKER_THREAD = 'DedicatedWorker';

export interface Thread {
  pid: number;
  tid: number;
}

/** Processes descended from this one (the Chromium Playwright launched, its zygotes and renderers). */
function descendants(): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Ended while we looked.
    }
  }
  const out: number[] = [];
  const queue = [process.pid];
  while (queue.length > 0) for (const child of children.get(queue.shift()!) ?? []) out.push(child), queue.push(child);
  return out;
}

/** This Chromium's dedicated worker threads alive now. */
export function workerThreads(): Thread[] {
  const threads: Thread[] = [];
  for (const pid of descendants()) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        if (readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim() === WORKER_THREAD) threads.push({ pid, tid: Number(tid) });
      }
    } catch {
      // Ended while we looked.
    }
  }
  return threads;
}

/** CPU time the thread has run, in ms (schedstat: nanoseconds on a CPU). */
export function cpuMs(thread: Thread): number {
  return Number(readFileSync(`/proc/${thread.pid}/task/${thread.tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

export class WorkerThreadCap {
  readonly quotaUs: number;
  /** Cgroup folder of each thread capped, by thread id. */
  private readonly groups = new Map<number, string>();
  /** Threads whose cap is lifted for a while: their empty group is not an ended thread's. */
  private readonly lifted = new Set<number>();

  constructor(readonly rate: number) {
    this.quotaUs = Math.round(PERIOD_US / rate);
    if (this.quotaUs < 1000) throw new Error(`a ${rate}× cap needs a quota under the kernel's 1 ms minimum in a ${PERIOD_US / 1000} ms period`);
  }

  /** Whether this machine lets us cap threads (a writable cgroup v1 cpu hierarchy). */
  static available(): boolean {
    return existsSync(join(CPU_CGROUPS, 'tasks')) && existsSync(join(CPU_CGROUPS, 'cpu.cfs_quota_us'));
  }

  get share(): number {
    return this.quotaUs / PERIOD_US;
  }

  /** Caps every worker thread of this Chromium not capped yet (each in a group of its own: a quota is shared by its group); returns them. */
  capNew(): Thread[] {
    this.forgetEnded();
    const fresh = workerThreads().filter((t) => !this.groups.has(t.tid));
    for (const thread of fresh) {
      const group = join(CPU_CGROUPS, `engram-device-${process.pid}-${thread.tid}`);
      mkdirSync(group, { recursive: true });
      writeFileSync(join(group, 'cpu.cfs_period_us'), String(PERIOD_US));
      writeFileSync(join(group, 'cpu.cfs_quota_us'), String(this.quotaUs));
      writeFileSync(join(group, 'tasks'), String(thread.tid));
      this.groups.set(thread.tid, group);
    }
    return fresh;
  }

  /** Lifts the cap of one thread for a while (the calibration's control), or puts it back. */
  setCapped(thread: Thread, capped: boolean): void {
    const group = this.groups.get(thread.tid);
    if (!group) throw new Error(`thread ${thread.tid} was never capped`);
    writeFileSync(join(capped ? group : CPU_CGROUPS, 'tasks'), String(thread.tid));
    if (capped) this.lifted.delete(thread.tid);
    else this.lifted.add(thread.tid);
  }

  /** Whether the kernel has the thread in its capped group now. */
  isCapped(thread: Thread): boolean {
    const group = this.groups.get(thread.tid);
    return !!group && readFileSync(`/proc/${thread.pid}/task/${thread.tid}/cgroup`, 'utf8').includes(`:cpu:/${group.slice(CPU_CGROUPS.length + 1)}\n`);
  }

  /** Periods in which the thread's group ran out of quota (cpu.stat), so the cap was felt. */
  throttledPeriods(thread: Thread): number {
    const group = this.groups.get(thread.tid);
    if (!group) return 0;
    return Number(/nr_throttled (\d+)/.exec(readFileSync(join(group, 'cpu.stat'), 'utf8'))?.[1] ?? 0);
  }

  /** Removes the groups of threads that ended (a killed tab's worker). */
  private forgetEnded(): void {
    for (const [tid, group] of this.groups) {
      if (this.lifted.has(tid) || readFileSync(join(group, 'tasks'), 'utf8').trim() !== '') continue;
      try {
        rmdirSync(group);
        this.groups.delete(tid);
      } catch {
        // Still being emptied by the kernel; next time.
      }
    }
  }

  /** Moves every thread still capped back and removes the groups. */
  release(): void {
    for (const [tid, group] of this.groups) {
      for (const left of readFileSync(join(group, 'tasks'), 'utf8').split('\n').filter(Boolean)) {
        try {
          writeFileSync(join(CPU_CGROUPS, 'tasks'), left);
        } catch {
          // Ended meanwhile.
        }
      }
      try {
        rmdirSync(group);
      } catch {
        // A thread in its last moments; the kernel frees the group with it.
      }
      this.groups.delete(tid);
    }
  }
}
