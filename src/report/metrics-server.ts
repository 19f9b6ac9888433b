// --listen ADDR:PORT: the metrics for Prometheus to scrape at /metrics, over plain node:http.
// "/" answers with a one-line pointer, for whoever opens the address in a browser.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Registry } from 'prom-client';

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

function formatListenAddress({ host, port }: ListenAddress): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** At most this many connections at once: Prometheus holds one (two for a pair), a person's curl one more. */
const MAX_CONNECTIONS = 16;
/** Requests on one connection not yet answered: a client that sends more without reading is dropped. */
const MAX_PENDING_REQUESTS = 4;
/** Answers written to a connection and not yet taken by its client, beyond the kernel's buffer: past this it is dropped. */
const MAX_UNREAD_BYTES = 256 * 1024;
/** A connection's requests: it is closed after this many, and Prometheus opens another. */
const MAX_REQUESTS_PER_CONNECTION = 100;
/** A request whose headers or whole self take longer than this is dropped, and so is a connection idle this long. */
const REQUEST_DEADLINE_MS = 10_000;

export class MetricsServer {
  /** The rendering under way: requests that come meanwhile share it. */
  private rendering: Promise<string> | null = null;

  private constructor(
    private readonly server: Server,
    private readonly registry: Registry,
  ) {}

  /** Resolves once the port is bound; rejects with one line saying why it cannot be. */
  static listen(address: ListenAddress, registry: Registry): Promise<MetricsServer> {
    let metricsServer: MetricsServer | null = null;
    const server = createServer((request, response) => metricsServer?.serve(request, response));
    server.maxConnections = MAX_CONNECTIONS;
    server.maxRequestsPerSocket = MAX_REQUESTS_PER_CONNECTION;
    server.headersTimeout = REQUEST_DEADLINE_MS;
    server.requestTimeout = REQUEST_DEADLINE_MS;
    // No 'timeout' listener: a connection idle this long (a client that reads nothing) is destroyed.
    server.setTimeout(REQUEST_DEADLINE_MS);
    return new Promise((resolve, reject) => {
      let bound = false;
      server.on('error', (error: Error) => {
        // Once bound, a failed accept (EMFILE) fails a scrape, which Prometheus sees: the probe goes on.
        if (bound) return;
        // "listen EADDRINUSE: address already in use 127.0.0.1:9258": the address is said once, first.
        const reason = error.message.replace(/^listen /, '').replace(/ \S+:\d+$/, '');
        reject(new Error(`cannot listen on ${formatListenAddress(address)}: ${reason}`));
      });
      server.listen({ port: address.port, host: address.host === '' ? undefined : address.host }, () => {
        bound = true;
        metricsServer = new MetricsServer(server, registry);
        resolve(metricsServer);
      });
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /**
   * One request. A client that pipelines requests without reading the answers is dropped
   * once it has MAX_PENDING_REQUESTS unanswered or MAX_UNREAD_BYTES unread: the memory and
   * the time a client takes are bounded, and the probing and `status` never wait for it.
   */
  private serve(request: IncomingMessage, response: ServerResponse): void {
    const { socket } = request;
    if (socket.destroyed) return;
    const pending = (pendingRequests.get(socket) ?? 0) + 1;
    pendingRequests.set(socket, pending);
    response.once('close', () => pendingRequests.set(socket, (pendingRequests.get(socket) ?? 1) - 1));
    if (pending > MAX_PENDING_REQUESTS || socket.writableLength > MAX_UNREAD_BYTES) {
      socket.destroy();
      return;
    }
    // No request of any shape ends the run: whatever answering throws is that request's 500.
    answer(this, request, response).catch(() => {
      if (response.headersSent) response.destroy();
      else reply(request, response, 500, 'slowdisk: cannot answer this request\n');
    });
  }

  /** The registry's text, rendered once for all the requests that wait for it. */
  render(): Promise<string> {
    this.rendering ??= this.registry.metrics().finally(() => (this.rendering = null));
    return this.rendering;
  }
}

/** Each connection's requests not yet answered. */
const pendingRequests = new WeakMap<Socket, number>();

const TEXT = 'text/plain; charset=utf-8';

function reply(request: IncomingMessage, response: ServerResponse, status: number, body: string, contentType = TEXT): void {
  response.writeHead(status, { 'Content-Type': contentType });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** The path a request names, or null when its target is no URL (`GET //[ HTTP/1.1`). */
function routeOf(request: IncomingMessage): string | null {
  try {
    return new URL(request.url ?? '/', 'http://slowdisk').pathname;
  } catch {
    return null;
  }
}

async function answer(server: MetricsServer, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const route = routeOf(request);
  if (route === null) {
    reply(request, response, 400, 'bad request: slowdisk serves GET /metrics\n');
  } else if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD');
    reply(request, response, 405, 'slowdisk serves GET /metrics\n');
  } else if (route === '/metrics') {
    const metrics = await server.render().catch((error: Error) => error);
    if (response.destroyed) return;
    if (metrics instanceof Error) reply(request, response, 500, `slowdisk: ${metrics.message}\n`);
    else reply(request, response, 200, metrics, server.contentType);
  } else if (route === '/') {
    reply(request, response, 200, 'slowdisk: Prometheus metrics at /metrics\n');
  } else {
    reply(request, response, 404, 'not found: slowdisk serves /metrics\n');
  }
}
