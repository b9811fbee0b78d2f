import type { Kube } from './client.ts';
import { isNotFound } from './errors.ts';
import { API_VERSION, type GenjobsResource, GROUP, PLURALS, VERSION } from './types.ts';

const MERGE_PATCH_TYPE = 'application/merge-patch+json';

/** What a create takes: the object without apiVersion and kind, which the kind fixes. */
export type NewResource<T extends GenjobsResource> = Omit<T, 'apiVersion' | 'kind' | 'status'>;

export interface ListPage<T> {
  items: T[];
  resourceVersion: string;
  continue?: string;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
}

/**
 * Typed access to one genjobs.io kind in the connection's namespace. Writes that carry
 * `metadata.resourceVersion` (update, updateStatus, a patch that sets it) are
 * compare-and-swap: the apiserver answers 409 Conflict when the object changed since.
 */
export class CustomResources<T extends GenjobsResource> {
  readonly kind: T['kind'];
  readonly plural: string;
  readonly namespace: string;
  private readonly kube: Kube;

  constructor(kube: Kube, kind: T['kind']) {
    this.kube = kube;
    this.kind = kind;
    this.plural = PLURALS[kind];
    this.namespace = kube.namespace;
  }

  /** The REST path of the collection, for watches. */
  get path(): string {
    return `/apis/${GROUP}/${VERSION}/namespaces/${this.namespace}/${this.plural}`;
  }

  private at(name: string, sub = ''): string {
    return `${this.path}/${encodeURIComponent(name)}${sub}`;
  }

  async get(name: string): Promise<T | undefined> {
    try {
      return await this.kube.http.request<T>('GET', this.at(name));
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  async list(options: ListOptions = {}): Promise<ListPage<T>> {
    const res = await this.kube.http.request<{
      items: T[];
      metadata?: { resourceVersion?: string; continue?: string };
    }>('GET', this.path, {
      collection: true,
      query: {
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        limit: options.limit,
        continue: options.continue,
      },
    });
    return {
      items: res.items,
      resourceVersion: res.metadata?.resourceVersion ?? '',
      continue: res.metadata?.continue || undefined,
    };
  }

  /** Every object, following continue tokens. */
  async listAll(options: Omit<ListOptions, 'continue'> = {}): Promise<T[]> {
    const items: T[] = [];
    let token: string | undefined;
    do {
      const page = await this.list({ limit: 500, ...options, continue: token });
      items.push(...page.items);
      token = page.continue;
    } while (token);
    return items;
  }

  async create(obj: NewResource<T>): Promise<T> {
    const body = {
      apiVersion: API_VERSION,
      kind: this.kind,
      ...obj,
      metadata: { ...obj.metadata, namespace: this.namespace },
    };
    return this.kube.http.request<T>('POST', this.path, { body });
  }

  /** Replaces spec and metadata; CAS on `metadata.resourceVersion`. */
  async update(obj: T): Promise<T> {
    return this.kube.http.request<T>('PUT', this.at(nameOf(obj)), { body: obj });
  }

  /** Replaces the status subresource; CAS on `metadata.resourceVersion`. */
  async updateStatus(obj: T): Promise<T> {
    return this.kube.http.request<T>('PUT', this.at(nameOf(obj), '/status'), { body: obj });
  }

  /** JSON merge patch of spec/metadata; a patch with `metadata.resourceVersion` is CAS. */
  async patch(name: string, patch: object): Promise<T> {
    return this.kube.http.request<T>('PATCH', this.at(name), { body: patch, contentType: MERGE_PATCH_TYPE });
  }

  /** JSON merge patch of the status subresource; with `metadata.resourceVersion` it is CAS. */
  async patchStatus(name: string, patch: object): Promise<T> {
    return this.kube.http.request<T>('PATCH', this.at(name, '/status'), {
      body: patch,
      contentType: MERGE_PATCH_TYPE,
    });
  }

  /** Deletes; returns false when it was already gone. A uid precondition avoids deleting a successor. */
  async delete(name: string, preconditions?: { uid?: string; resourceVersion?: string }): Promise<boolean> {
    try {
      await this.kube.http.send('DELETE', this.at(name), {
        body: preconditions ? { preconditions } : undefined,
      });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }
}

function nameOf(obj: GenjobsResource): string {
  const name = obj.metadata.name;
  if (!name) throw new Error(`${obj.kind} without metadata.name`);
  return name;
}

/** The four kinds of one connection, made once and shared. */
export interface Resources {
  jobs: CustomResources<import('./types.ts').GenerationJob>;
  uploads: CustomResources<import('./types.ts').Upload>;
  accounts: CustomResources<import('./types.ts').Account>;
  apiKeys: CustomResources<import('./types.ts').ApiKey>;
}

export function resources(kube: Kube): Resources {
  return {
    jobs: new CustomResources(kube, 'GenerationJob'),
    uploads: new CustomResources(kube, 'Upload'),
    accounts: new CustomResources(kube, 'Account'),
    apiKeys: new CustomResources(kube, 'ApiKey'),
  };
}

/**
 * The later of two copies of one object: a cache's and the one a write of ours returned,
 * which the cache shows only a moment later. resourceVersions are documented as opaque;
 * etcd's are increasing integers, so the larger is the later state. Were that ever wrong,
 * a stale pick costs one conflict.
 */
export function later<T extends { metadata: { resourceVersion?: string } }>(
  a: T | undefined,
  b: T | undefined,
): T | undefined {
  if (!a) return b;
  if (!b) return a;
  const rv = (o: T) => Number(o.metadata.resourceVersion ?? 0);
  return rv(a) >= rv(b) ? a : b;
}
