// Messages between an import's threads, taken one at a time in arrival order.

/** A queue fed by a message listener; `next` waits for the next message. After a last one, it ignores the rest. */
export function messageQueue<M>(isLast: (m: M) => boolean) {
  const queue: M[] = [];
  let waiting: ((m: M) => void) | null = null;
  let ended = false;
  return {
    push(m: M): void {
      if (ended) return;
      if (isLast(m)) ended = true;
      if (waiting) {
        const w = waiting;
        waiting = null;
        w(m);
      } else queue.push(m);
    },
    next(): Promise<M> {
      return new Promise<M>((resolve) => {
        const m = queue.shift();
        if (m !== undefined) resolve(m);
        else waiting = resolve;
      });
    },
  };
}
