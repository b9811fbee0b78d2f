import { Agent, request } from 'node:http';

export interface HttpAnswer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  /** Bytes received (before any decoding: this client decodes nothing). */
  bytes: number;
}

export interface CallOptions {
  key?: string;
  json?: unknown;
  headers?: Record<string, string>;
}

/**
 * A keep-alive HTTP/1.1 client for the api on loopback: plain node:http with a pooled
 * agent, so the load generator itself costs as little CPU as possible on a 2-core machine.
 */
export class ApiClient {
  readonly baseUrl: string;
  private readonly url: URL;
  private readonly agent: Agent;

  constructor(baseUrl: string, maxSockets = 256) {
    this.baseUrl = baseUrl;
    this.url = new URL(baseUrl);
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  call(method: string, path: string, options: CallOptions = {}): Promise<HttpAnswer> {
    const body = options.json === undefined ? undefined : JSON.stringify(options.json);
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.url.hostname,
          port: this.url.port,
          method,
          path,
          headers,
          agent: this.agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            // A compressed body is left as it came: only its size is of interest.
            const encoded = res.headers['content-encoding'] !== undefined;
            resolve({
              status: res.statusCode ?? 0,
              body: encoded ? '' : raw.toString('utf8'),
              headers: res.headers,
              bytes: raw.length,
            });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** The call, failing unless it answered 2xx; returns the parsed JSON body. */
  async ok<T = unknown>(
    method: string,
    path: string,
    options: { key?: string; json?: unknown } = {},
  ): Promise<T> {
    const res = await this.call(method, path, options);
    if (res.status < 200 || res.status > 299) {
      throw new Error(`${method} ${path}: ${res.status} ${res.body.slice(0, 300)}`);
    }
    return (res.body ? JSON.parse(res.body) : undefined) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}
