import { GenjobsError } from './errors.ts';
import { DEFAULT_TIMEOUT_MS, type Http, segment } from './http.ts';
import type { CallOptions } from './jobs.ts';
import type {
  AccountSummary,
  CapabilityGroup,
  CatalogFilter,
  CatalogModel,
  CatalogModelDetail,
  CatalogProvider,
  CatalogProviderDetail,
  Category,
  ModelList,
  Presign,
  PresignRequest,
  ProviderModelList,
  UploadRecord,
} from './types.ts';

/** The public catalog (a key, when the client has one, personalizes the model list). */
export class CatalogApi {
  private readonly http: Http;
  constructor(http: Http) {
    this.http = http;
  }

  models(filter: Partial<CatalogFilter> = {}, o: CallOptions = {}): Promise<CatalogModel[]> {
    return this.get('/v1/catalog/models', 'optional', o, filter);
  }

  /** `provider/model` (its default capability) or `provider/model/capability`. */
  async model(slug: string, o: CallOptions = {}): Promise<CatalogModelDetail> {
    const path = slug
      .split('/')
      .map((part) => segment('a part of a model slug', part))
      .join('/');
    return this.get(`/v1/catalog/models/${path}`, 'optional', o);
  }

  providers(
    filter: Omit<Partial<CatalogFilter>, 'provider'> = {},
    o: CallOptions = {},
  ): Promise<CatalogProvider[]> {
    return this.get('/v1/catalog/providers', 'none', o, filter);
  }

  async provider(id: string, o: CallOptions = {}): Promise<CatalogProviderDetail> {
    return this.get(`/v1/catalog/providers/${segment('a provider id', id)}`, 'none', o);
  }

  capabilityGroups(o: CallOptions = {}): Promise<CapabilityGroup[]> {
    return this.get('/v1/catalog/capability-groups', 'none', o);
  }

  categories(o: CallOptions = {}): Promise<Category[]> {
    return this.get('/v1/catalog/categories', 'none', o);
  }

  private get<T>(
    path: string,
    credential: 'optional' | 'none',
    o: CallOptions,
    query?: Record<string, string | number | undefined>,
  ): Promise<T> {
    return this.http.json({ method: 'GET', path, credential, query, idempotent: true, signal: o.signal });
  }
}

/** The models the key may use (scope list_models, sent as x-api-key as the spec has it). */
export class ModelsApi {
  private readonly http: Http;
  constructor(http: Http) {
    this.http = http;
  }

  list(filter: Partial<CatalogFilter> = {}, o: CallOptions = {}): Promise<ModelList> {
    return this.http.json({
      method: 'GET',
      path: '/v1/models',
      credential: 'x-api-key',
      query: filter,
      idempotent: true,
      signal: o.signal,
    });
  }

  async byProvider(providerId: string, o: CallOptions = {}): Promise<ProviderModelList> {
    return this.http.json({
      method: 'GET',
      path: `/v1/providers/${segment('a provider id', providerId)}/models`,
      credential: 'x-api-key',
      idempotent: true,
      signal: o.signal,
    });
  }
}

/** What `uploads.upload` accepts as the file's bytes. */
export type UploadData = Blob | ArrayBuffer | Uint8Array | string;

/** The key's account: its balance and plan. */
export class AccountApi {
  private readonly http: Http;
  constructor(http: Http) {
    this.http = http;
  }

  /** GET /v1/account: the key's account, its balance, credit held, spend and plan. */
  get(o: CallOptions = {}): Promise<AccountSummary> {
    return this.http.json<AccountSummary>({
      method: 'GET',
      path: '/v1/account',
      credential: 'bearer',
      idempotent: true,
      signal: o.signal,
    });
  }
}

/** Temporary files for job input: presign, PUT, use the fileUrl. */
export class UploadsApi {
  private readonly http: Http;
  constructor(http: Http) {
    this.http = http;
  }

  /** POST /v1/uploads/presign: answers the wrapped result's `data`. */
  async presign(req: PresignRequest, o: CallOptions = {}): Promise<Presign['data']> {
    const res = await this.http.json<Presign>({
      method: 'POST',
      path: '/v1/uploads/presign',
      credential: 'bearer',
      body: req,
      signal: o.signal,
    });
    return res.data;
  }

  async get(id: string, o: CallOptions = {}): Promise<UploadRecord['data']> {
    const res = await this.http.json<UploadRecord>({
      method: 'GET',
      path: `/v1/uploads/${segment('an upload id', id)}`,
      credential: 'bearer',
      idempotent: true,
      signal: o.signal,
    });
    return res.data;
  }

  /**
   * Presigns and PUTs the file; answers the presign result, whose `fileUrl` goes into a
   * job's input. The PUT is retried like any idempotent request. A file larger than its type
   * may be is refused before the presign, which would count against the account's upload
   * quota for the 15 minutes its address works.
   */
  async upload(
    data: UploadData,
    o: CallOptions & { contentType: PresignRequest['contentType']; filename: string },
  ): Promise<Presign['data']> {
    const body = new Blob([data] as ConstructorParameters<typeof Blob>[0], { type: o.contentType });
    const max = maxUploadBytes(o.contentType);
    if (max !== undefined && body.size > max) {
      throw new GenjobsError(
        `${o.filename} has ${body.size} bytes, more than the ${max} an upload of type ${o.contentType} may have`,
        { status: 413, code: 'PAYLOAD_TOO_LARGE', retryable: false },
      );
    }
    const presigned = await this.presign({ filename: o.filename, contentType: o.contentType }, o);
    const f = this.http.o.fetch ?? fetch;
    // A PUT of the whole file to one address is idempotent: retried after a lost answer too.
    const res = await this.http
      .retrying(
        (signal) =>
          f(presigned.uploadUrl, {
            redirect: 'manual',
            method: 'PUT',
            headers: { 'content-type': o.contentType },
            body,
            signal,
          }),
        {
          idempotent: true,
          signal: o.signal,
          to: new URL(presigned.uploadUrl).origin,
          timeoutMs: putTimeoutMs(this.http.o.timeoutMs ?? DEFAULT_TIMEOUT_MS, body.size),
        },
      )
      .catch(async (err: unknown) => {
        // On a slow link the bytes of an attempt given up on may still have landed whole (a
        // socket's buffers drain after the abort): the service knows; do not send them again.
        if (o.signal?.aborted) throw err;
        const record = await this.get(presigned.fileId, { signal: o.signal }).catch(() => undefined);
        if (record?.uploaded && record.sizeBytes === body.size) return undefined;
        throw err;
      });
    await res?.body?.cancel();
    return presigned;
  }
}

/** The largest file of a content type (spec 8: images 10 MB, audio 50 MB, video 100 MB). */
export function maxUploadBytes(contentType: string): number | undefined {
  const MB = 1024 * 1024;
  const family = contentType.split('/')[0];
  return family === 'image'
    ? 10 * MB
    : family === 'audio'
      ? 50 * MB
      : family === 'video'
        ? 100 * MB
        : undefined;
}

/**
 * The time limit of an upload's PUT: the request's, plus a second per 32 KiB of the file
 * (a 256 kbit/s link), since fetch cannot tell whether the bytes of a sized body still flow
 * (a streamed one would go chunked, which presigned PUTs refuse).
 */
export function putTimeoutMs(timeoutMs: number, bytes: number): number {
  return timeoutMs + Math.ceil(bytes / 32_768) * 1_000;
}
