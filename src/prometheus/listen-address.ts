// --listen ADDR:PORT as the flag takes it and the messages say it. Apart from the server
// itself (metrics-server.ts), which loads node:http: parsing the flag must not load it into
// every run, and only a run that listens loads the server.

export interface ListenAddress {
  /** Empty: every interface. */
  host: string;
  port: number;
}

/** "127.0.0.1:9258", "[::1]:9258", ":9258" (every interface). */
export function parseListenAddress(text: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port < 1 || port > 65535) {
    throw new RangeError(`expected ADDR:PORT, such as 127.0.0.1:9258, [::1]:9258 or :9258 (every interface), got '${text}'`);
  }
  return { host: match[1] ?? match[2], port };
}

export function formatListenAddress({ host, port }: ListenAddress): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** While the address cannot be bound (taken, not on the host yet), it is tried again this often. */
export const LISTEN_RETRY_MS = 10_000;
