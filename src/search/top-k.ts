/**
 * A bounded min-heap keeping the k best (row, score) pairs under a total
 * order: higher score first, and among equal scores the lower row.
 */
export class TopK {
  private rows: number[] = [];
  private scores: number[] = [];
  constructor(private readonly k: number) {}

  wouldAccept(score: number, row: number): boolean {
    if (this.rows.length < this.k) return true;
    const worst = this.scores[0]!;
    return score > worst || (score === worst && row < this.rows[0]!);
  }

  /** The k-th best score once there are k, −∞ before. */
  floor(): number {
    return this.rows.length < this.k ? -Infinity : this.scores[0]!;
  }

  push(row: number, score: number): void {
    if (this.rows.length < this.k) {
      this.rows.push(row);
      this.scores.push(score);
      this.siftUp(this.rows.length - 1);
    } else {
      this.rows[0] = row;
      this.scores[0] = score;
      this.siftDown(0);
    }
  }

  sorted(): { row: number; score: number }[] {
    return this.rows.map((row, i) => ({ row, score: this.scores[i]! })).sort((a, b) => b.score - a.score || a.row - b.row);
  }

  /** Whether entry a ranks below entry b. */
  private worse(a: number, b: number): boolean {
    const sa = this.scores[a]!;
    const sb = this.scores[b]!;
    return sa < sb || (sa === sb && this.rows[a]! > this.rows[b]!);
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const n = this.rows.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let smallest = i;
      if (l < n && this.worse(l, smallest)) smallest = l;
      if (r < n && this.worse(r, smallest)) smallest = r;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  private swap(a: number, b: number): void {
    [this.rows[a], this.rows[b]] = [this.rows[b]!, this.rows[a]!];
    [this.scores[a], this.scores[b]] = [this.scores[b]!, this.scores[a]!];
  }
}
