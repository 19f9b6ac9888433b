// --listen ADDR:PORT: the metrics for Prometheus to scrape at /metrics, over plain node:http.
// "/" answers with a one-line pointer, for whoever opens the address in a browser.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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

export class MetricsServer {
  private constructor(private readonly server: Server) {}

  /** Resolves once the port is bound; rejects with one line saying why it cannot be. */
  static listen(address: ListenAddress, registry: Registry): Promise<MetricsServer> {
    // No request of any shape ends the run: whatever answering throws is that request's 500.
    const server = createServer((request, response) => {
      answer(registry, request, response).catch(() => {
        if (response.headersSent) response.destroy();
        else reply(request, response, 500, 'slowdisk: cannot answer this request\n');
      });
    });
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
        resolve(new MetricsServer(server));
      });
    });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

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

async function answer(registry: Registry, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const route = routeOf(request);
  if (route === null) {
    reply(request, response, 400, 'bad request: slowdisk serves GET /metrics\n');
  } else if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD');
    reply(request, response, 405, 'slowdisk serves GET /metrics\n');
  } else if (route === '/metrics') {
    const metrics = await registry.metrics().catch((error: Error) => error);
    if (metrics instanceof Error) reply(request, response, 500, `slowdisk: ${metrics.message}\n`);
    else reply(request, response, 200, metrics, registry.contentType);
  } else if (route === '/') {
    reply(request, response, 200, 'slowdisk: Prometheus metrics at /metrics\n');
  } else {
    reply(request, response, 404, 'not found: slowdisk serves /metrics\n');
  }
}
