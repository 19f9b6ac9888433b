// Requests sent to a helper process, each answered in its own time under the id it was sent
// with: settled when its answer comes, or all at once when the helper is lost.

export class PendingReplies {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (result: unknown) => void; reject: (error: Error) => void }>();

  get size(): number {
    return this.pending.size;
  }

  /** A new request's id, and the promise its answer settles; `send` sends it under that id. */
  add<T>(send: (id: number) => void): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      send(id);
    });
  }

  /** The answer to request `id`: rejects it with `error`, else resolves it with `result`. An id not pending is ignored. */
  settle(id: number, error: Error | null, result?: unknown): void {
    const request = this.pending.get(id);
    if (!request) return;
    this.pending.delete(id);
    if (error) request.reject(error);
    else request.resolve(result);
  }

  /** The helper is gone: every request still pending is rejected with `error`. */
  failAll(error: Error): void {
    for (const request of this.pending.values()) request.reject(error);
    this.pending.clear();
  }
}
