/** The problem+json body the service answers errors with (RFC 9457 and its extension members). */
export interface ProblemBody {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  requestId?: string;
  retryable?: boolean;
  errors?: Array<{ pointer: string; message: string }>;
}

/**
 * Every error the client throws for an answer it could not use: an error answer of the
 * service (its status, stable `code`, `requestId` and whether a retry may succeed), or no
 * answer at all (status 0, code `NETWORK_ERROR`).
 */
export class GenjobsError extends Error {
  readonly status: number;
  /** The service's error code, e.g. `INSUFFICIENT_BALANCE`, `JOB_NOT_FOUND`. */
  readonly code: string;
  /** Quote it when asking for help: every log line of the request carries it. */
  readonly requestId: string | undefined;
  /** Whether the same request may succeed later (429, 503, network errors). */
  readonly retryable: boolean;
  /** Field problems of a 4xx, as JSON pointers into the request body. */
  readonly errors: Array<{ pointer: string; message: string }>;
  /** Seconds the service asked to wait before retrying (Retry-After). */
  readonly retryAfterSeconds: number | undefined;
  /** How many times the request was sent, retries included. */
  readonly attempts: number;
  /**
   * From `jobs.run`: the job, once submitted, and the Idempotency-Key it was submitted with
   * (also from `jobs.submit` given one),
   * so a caller that gives up waiting can follow the job (`jobs.wait(jobId)`) or submit again
   * with the same key (`run(…, { idempotencyKey })`) without a second job or charge.
   */
  jobId?: string;
  idempotencyKey?: string;

  constructor(
    message: string,
    o: {
      status: number;
      code: string;
      requestId?: string;
      retryable: boolean;
      errors?: Array<{ pointer: string; message: string }>;
      retryAfterSeconds?: number;
      attempts?: number;
      cause?: unknown;
    },
  ) {
    super(message, { cause: o.cause });
    this.name = 'GenjobsError';
    this.status = o.status;
    this.code = o.code;
    this.requestId = o.requestId;
    this.retryable = o.retryable;
    this.errors = o.errors ?? [];
    this.retryAfterSeconds = o.retryAfterSeconds;
    this.attempts = o.attempts ?? 1;
  }

  /** The error for an answer that is not 2xx, to the `attempts`-th sending of the request. */
  static async fromResponse(res: Response, attempts = 1): Promise<GenjobsError> {
    const text = await res.text().catch(() => '');
    let body: ProblemBody = {};
    try {
      body = text ? (JSON.parse(text) as ProblemBody) : {};
    } catch {
      // Not problem+json (a proxy's page): the status says what there is to say.
    }
    const retryAfter = retryAfterSeconds(res.headers.get('retry-after'));
    return new GenjobsError(body.detail ?? foreignAnswer(text, res.status), {
      status: res.status,
      code: body.code ?? `HTTP_${res.status}`,
      requestId: body.requestId ?? res.headers.get('x-request-id') ?? undefined,
      retryable:
        body.retryable ??
        (res.status === 429 || res.status === 502 || res.status === 503 || res.status === 504),
      errors: body.errors,
      retryAfterSeconds: retryAfter,
      attempts,
    });
  }
}

/**
 * What an error body that is not problem+json says, in one line: an S3-compatible store's XML
 * error (an upload's PUT goes to the bucket) as its code and message, an HTML page (a
 * proxy's) as its title, anything else squeezed and cut. A proxy's 413 also says what to
 * change: its body limit is below what the api accepts (nginx's default is 1 MB).
 */
function foreignAnswer(text: string, status: number): string {
  const s3 = /<Code>([^<]*)<\/Code>[\s\S]*?<Message>([^<]*)<\/Message>/.exec(text);
  if (s3) return `${s3[1]}: ${s3[2]}`;
  const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1]?.replace(/\s+/g, ' ').trim();
  const said = title || text.replace(/\s+/g, ' ').trim().slice(0, 200) || `HTTP ${status}`;
  if (status !== 413) return said;
  return `${said}: something in front of the api (a proxy) refused the request as too large; raise its body size limit (nginx: client_max_body_size) to what the api accepts`;
}

/**
 * An error answer without a service code (the client names it `HTTP_<status>`): every
 * error of the api has one, so this came from something else at that address (a proxy,
 * another server, the controller's health port).
 */
export function notFromTheApi(err: GenjobsError): boolean {
  return err.status > 0 && /^HTTP_\d+$/.test(err.code);
}

/**
 * A Retry-After header (RFC 9110 10.2.3) in seconds: delay-seconds or an HTTP-date;
 * undefined when absent or unreadable (a proxy's 503 usually has none: the client's own
 * backoff applies then, never an immediate retry).
 */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  const text = value?.trim() ?? '';
  if (text === '') return undefined;
  if (/^[0-9]+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : undefined;
}
