// A loopback listener that must never be reached (RELIABILITY U5): a DTD's external entities point at
// it, and a test asserts it saw no connection at all — not even one that sent nothing.
import net from "node:net";

export type Trap = {
  /** `http://127.0.0.1:<port>` of the listener. */
  url: string;
  /** Connections accepted so far. */
  hits: () => number;
  /** Waits for connections still in flight to arrive (a few event-loop turns), then answers `hits()`. */
  settle: () => Promise<number>;
  close: () => Promise<void>;
};

export async function startTrap(): Promise<Trap> {
  let hits = 0;
  const server = net.createServer((socket) => {
    hits++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    async settle() {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return hits;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
