// --listen ADDR:PORT: the metrics for Prometheus to scrape at /metrics, over plain node:http.
// "/" answers with a one-line pointer, for whoever opens the address in a browser.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Registry } from 'prom-client';
import { writeStderrLine } from '../common/visible-text.js';
import { formatListenAddress, LISTEN_RETRY_MS, type ListenAddress } from './listen-address.js';

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

/** "listen EADDRINUSE: address already in use 127.0.0.1:9258" as "EADDRINUSE: address already in use": the address is said once, first. */
function bindFailure(address: ListenAddress, error: Error): string {
  return `cannot listen on ${formatListenAddress(address)}: ${error.message.replace(/^listen /, '').replace(/ \S+:\d+$/, '')}`;
}

/**
 * Serves the registry at the address for as long as the run lasts. An address that cannot be
 * bound (a port another program took first) costs the metrics served, never the probing: it
 * is told on stderr and tried again every LISTEN_RETRY_MS; `onChange` hears each change of
 * `problem()`.
 */
export class MetricsServer {
  private readonly server: Server;
  private problemText: string | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;
  /** The rendering under way: requests that come meanwhile share it. */
  private rendering: Promise<string> | null = null;

  constructor(
    readonly address: ListenAddress,
    private readonly registry: Registry,
    private readonly onChange: (problem: string | null) => void = () => {},
  ) {
    this.server = createServer((request, response) => this.serve(request, response));
    this.server.maxConnections = MAX_CONNECTIONS;
    this.server.maxRequestsPerSocket = MAX_REQUESTS_PER_CONNECTION;
    this.server.headersTimeout = REQUEST_DEADLINE_MS;
    this.server.requestTimeout = REQUEST_DEADLINE_MS;
    // No 'timeout' listener: a connection idle this long (a client that reads nothing) is destroyed.
    this.server.setTimeout(REQUEST_DEADLINE_MS);
    this.server.on('error', (error: Error) => {
      // Once bound, a failed accept (EMFILE) fails a scrape, which Prometheus sees: the probe goes on.
      if (this.server.listening) return;
      this.setProblem(bindFailure(address, error));
      if (!this.closed) this.retry = setTimeout(() => this.bind(), LISTEN_RETRY_MS).unref();
    });
    this.server.on('listening', () => this.setProblem(null));
  }

  /** Resolves once the first bind has been tried: bound, or told why not (and tried again later). */
  start(): Promise<void> {
    return new Promise((resolve) => {
      this.server.once('listening', resolve);
      this.server.once('error', () => resolve());
      this.bind();
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Why the address is not served now; null while it is. */
  problem(): string | null {
    return this.problemText;
  }

  close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    if (!this.server.listening) return Promise.resolve();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private bind(): void {
    this.retry = null;
    if (this.closed) return;
    this.server.listen({ port: this.address.port, host: this.address.host === '' ? undefined : this.address.host });
  }

  /** Each change is told once on stderr: a port taken, then served once it is free. */
  private setProblem(problem: string | null): void {
    if (problem === this.problemText) return;
    if (problem !== null) writeStderrLine(`${problem}: /metrics is not served, the run goes on; tried again every ${LISTEN_RETRY_MS / 1000} s`);
    else if (this.problemText !== null) writeStderrLine(`listening on ${formatListenAddress(this.address)} now: /metrics is served`);
    this.problemText = problem;
    this.onChange(problem);
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
