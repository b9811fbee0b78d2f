import { randomUUID } from 'node:crypto';
import sharp from 'sharp';

/** What the clients were told: the facts the invariants are checked against. */
export interface Observed {
  /** Jobs a submit answered 200 for: jobId → account, cost and whether it asked for a webhook. */
  submitted: Map<string, { account: string; cost: number; webhook: boolean }>;
  /** Jobs a cancel answered 200 for, with the refund it promised. */
  cancelled: Map<string, number>;
  /** Counts of outcomes by operation and answer (`submit 200`, `cancel 409`, `submit error` ...). */
  outcomes: Map<string, number>;
  /** Submits that never got a definite answer before their retries ran out (key kept). */
  unanswered: number;
}

export interface LoadOptions {
  apiUrl: string;
  keys: Record<string, string>;
  webhookUrl: string;
  /** Requests in flight at most. */
  concurrency: number;
  /** Pause of each client between two operations. */
  pauseMs: number;
  random: () => number;
}

const IMAGE = 'genjobs/reference-image/text-to-image';
const EDIT = 'genjobs/reference-image/edit-image';
/** A client's patience for one request, as the finding's clients had. */
const CLIENT_TIMEOUT_MS = 10_000;
/** How long a client keeps retrying one submit with its Idempotency-Key. */
const RETRY_FOR_MS = 90_000;

/**
 * A steady, bounded load: `concurrency` clients, each in a loop of submits (some with a
 * webhook, some followed at once by a cancel) and uploads used as an edit's input. A
 * submit that gets no definite answer (a 503, a refused connection, a client timeout) is
 * retried with the same Idempotency-Key, as a careful client would.
 */
export class Load {
  readonly observed: Observed = {
    submitted: new Map(),
    cancelled: new Map(),
    outcomes: new Map(),
    unanswered: 0,
  };
  private readonly o: LoadOptions;
  private running = false;
  private clients: Promise<void>[] = [];
  private png?: Buffer;

  constructor(options: LoadOptions) {
    this.o = options;
  }

  async start(): Promise<void> {
    this.png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3a7' } })
      .png()
      .toBuffer();
    this.running = true;
    this.clients = Array.from({ length: this.o.concurrency }, (_, i) => this.client(i));
  }

  /** Stops starting operations and waits for those in flight (their retries included). */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.clients);
  }

  private count(what: string): void {
    this.observed.outcomes.set(what, (this.observed.outcomes.get(what) ?? 0) + 1);
  }

  private async client(n: number): Promise<void> {
    const accounts = Object.keys(this.o.keys);
    const account = accounts[n % accounts.length]!;
    while (this.running) {
      const roll = this.o.random();
      try {
        if (roll < 0.2) await this.uploadAndEdit(account);
        else await this.submitMaybeCancel(account, roll < 0.45, roll > 0.75);
      } catch (err) {
        this.count(`client error ${(err as Error).name}`);
      }
      await sleep(this.o.pauseMs * (0.5 + this.o.random()));
    }
  }

  private async submitMaybeCancel(account: string, webhook: boolean, cancel: boolean): Promise<void> {
    const input = { prompt: `chaos ${randomUUID().slice(0, 8)}`, seed: Math.floor(this.o.random() * 1e6) };
    const jobId = await this.submit(account, { model: IMAGE, input, ...this.hook(webhook) });
    if (jobId && cancel) await this.cancel(account, jobId);
  }

  private hook(webhook: boolean) {
    return webhook ? { webhookUrl: `${this.o.webhookUrl}/hook/${randomUUID()}` } : {};
  }

  private async uploadAndEdit(account: string): Promise<void> {
    const presign = await this.retrying('presign', () =>
      this.call(account, 'POST', '/v1/uploads/presign', { filename: 'in.png', contentType: 'image/png' }),
    );
    if (presign?.status !== 200) return;
    const { uploadUrl, fileUrl } = (presign.body as { data: { uploadUrl: string; fileUrl: string } }).data;
    const put = await this.retrying('upload', async () => {
      const res = await fetch(uploadUrl, {
        method: 'PUT',
        headers: { 'content-type': 'image/png' },
        body: new Uint8Array(this.png!),
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      await res.arrayBuffer();
      return { status: res.status, body: undefined };
    });
    if (put?.status !== 200 && put?.status !== 201 && put?.status !== 204) return;
    await this.submit(account, {
      model: EDIT,
      input: { prompt: 'make it blue', image: fileUrl },
      ...this.hook(this.o.random() < 0.3),
    });
  }

  /** Submits with an Idempotency-Key, retrying what may be retried; the jobId once answered 200. */
  private async submit(account: string, body: Record<string, unknown>): Promise<string | undefined> {
    const key = randomUUID();
    const res = await this.retrying('submit', () => this.call(account, 'POST', '/v1/jobs/submit', body, key));
    if (res?.status !== 200) return undefined;
    const { jobId, costMicroCents } = res.body as { jobId: string; costMicroCents: number };
    this.observed.submitted.set(jobId, { account, cost: costMicroCents, webhook: 'webhookUrl' in body });
    return jobId;
  }

  private async cancel(account: string, jobId: string): Promise<void> {
    const res = await this.call(account, 'POST', `/v1/jobs/${jobId}/cancel`).catch(() => undefined);
    this.count(`cancel ${res?.status ?? 'error'}`);
    if (res?.status === 200)
      this.observed.cancelled.set(jobId, (res.body as { refundedMicroCents: number }).refundedMicroCents);
  }

  /**
   * Repeats a request while its answer says "try again" (503, 429, no connection, no answer
   * in time), pausing as Retry-After asks; gives up after {@link RETRY_FOR_MS}.
   */
  private async retrying(
    what: string,
    send: () => Promise<{ status: number; body: unknown; retryAfter?: number }>,
  ): Promise<{ status: number; body: unknown } | undefined> {
    const until = Date.now() + RETRY_FOR_MS;
    for (;;) {
      const res = await send().catch((err: Error) => ({ status: 0, body: err.name, retryAfter: undefined }));
      this.count(`${what} ${res.status || 'no answer'}`);
      const again = res.status === 0 || res.status === 503 || res.status === 429 || res.status === 502;
      if (!again) return res;
      if (Date.now() > until) {
        if (what === 'submit') this.observed.unanswered++;
        return undefined;
      }
      await sleep(Math.min(5_000, (res.retryAfter ?? 0.5) * 1000));
    }
  }

  private async call(account: string, method: string, path: string, body?: unknown, idempotencyKey?: string) {
    const res = await fetch(`${this.o.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.o.keys[account]}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const text = await res.text();
    const retryAfter = Number(res.headers.get('retry-after')) || undefined;
    return { status: res.status, body: text ? JSON.parse(text) : undefined, retryAfter };
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
