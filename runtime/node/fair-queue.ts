/**
 * The offload pool's waiting line: one first-in-first-out line per group (a principal), served in turn, so a
 * group with a hundred jobs waiting and a group with one each get the next free worker alternately. Within a
 * group, jobs keep the order they came in.
 */

/** Waiting items by group, taken round robin. */
export interface FairQueue<T> {
  readonly size: number;
  push(group: string, item: T): void;
  /** The item the next `shift` takes. */
  peek(): T | undefined;
  /** Takes the head of the group whose turn it is, and passes the turn on. */
  shift(): T | undefined;
  /** Takes every item, in no particular order. */
  drain(): T[];
}

export function createFairQueue<T>(): FairQueue<T> {
  const lines = new Map<string, T[]>();
  // Groups with items, in the order of their turns: the head group is served next, then goes to the back.
  const turns: string[] = [];
  let size = 0;
  return {
    get size() {
      return size;
    },
    push(group, item) {
      const line = lines.get(group);
      if (line) line.push(item);
      else {
        lines.set(group, [item]);
        turns.push(group);
      }
      size++;
    },
    peek() {
      return turns.length ? lines.get(turns[0]!)![0] : undefined;
    },
    shift() {
      const group = turns.shift();
      if (group === undefined) return undefined;
      const line = lines.get(group)!;
      const item = line.shift()!;
      if (line.length) turns.push(group);
      else lines.delete(group);
      size--;
      return item;
    },
    drain() {
      const items = [...lines.values()].flat();
      lines.clear();
      turns.length = 0;
      size = 0;
      return items;
    },
  };
}
