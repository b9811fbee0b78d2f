import { get, type IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_LABEL } from '../../src/catalog/watcher.ts';
import { applyConfigMap } from '../../src/k8s/configmaps.ts';
import { eventually } from '../support/cluster.ts';
import { startTestApi, type TestService } from '../support/service.ts';

let svc: TestService;
let keys: { plain: string; beta: string; vip: string; discounted: string };

const acme = (extra = '') => `
providers:
  - { id: acme, name: Acme, description: Acme models, logoUrl: "https://acme.example/l.svg", website: "https://acme.example", color: "#0EA5E9" }
models:
  - provider: acme
    name: beta-cam
    displayName: Beta Cam
    description: In beta.
    category: image
    visibility: segment
    segments: [beta]
    versions: [v1.0, v1.1, { version: v2.0, stable: false }]
    variants:
      text-to-image:
        inputSchema: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string } } }
        pricing: { baseCredits: 100000, unit: per_generation }
        runtime: { type: builtin, maxConcurrency: 1, typicalSeconds: 10 }
  - provider: acme
    name: secret-cam
    displayName: Secret Cam
    category: image
    visibility: private
    versions: [v1.0]
    variants:
      text-to-image:
        inputSchema: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string } } }
        pricing: { baseCredits: 500000, unit: per_generation }
        runtime: { type: builtin, maxConcurrency: 1, typicalSeconds: 10 }
${extra}`;

/** One more acme model (appended to acme()), a cheap image one. */
const oneModel = (name: string) => `  - provider: acme
    name: ${name}
    displayName: ${name}
    category: image
    versions: [v1.0]
    variants:
      text-to-image:
        inputSchema: { type: object, properties: { prompt: { type: string } } }
        pricing: { baseCredits: 1000, unit: per_generation }
        runtime: { type: builtin, maxConcurrency: 1, typicalSeconds: 10 }
`;

async function installAcme(yaml: string) {
  await applyConfigMap(svc.kube, {
    metadata: { name: 'catalog-acme', labels: { [CATALOG_LABEL]: 'true' } },
    data: { 'acme.yaml': yaml },
  });
}

beforeAll(async () => {
  svc = await startTestApi('catalog-api');
  await installAcme(acme());
  keys = {
    plain: await svc.account({ name: 'plain' }),
    beta: await svc.account({ name: 'beta', segments: ['beta'] }),
    vip: await svc.account({ name: 'vip', allowedModels: ['acme/secret-cam'] }),
    discounted: await svc.account({ name: 'disc', discountPercent: 25 }),
  };
  await eventually(
    () => svc.api.catalog()?.variantsBySlug.has('acme/beta-cam/text-to-image'),
    5_000,
    'acme catalog',
  );
});
afterAll(async () => {
  await svc?.stop();
});

const slugs = async (key?: string) =>
  (await (await svc.call('/v1/catalog/models', { key })).json()).map((m: { slug: string }) => m.slug).sort();

describe('catalog endpoints', () => {
  it('4.7 lists public models to everyone, segment and private ones only to accounts that may see them', async () => {
    const anonymous = await slugs();
    expect(anonymous).toEqual([
      'genjobs/reference-image/edit-image',
      'genjobs/reference-image/text-to-image',
      'genjobs/reference-video/text-to-video',
    ]);
    expect(await slugs(keys.plain)).toEqual(anonymous);
    expect(await slugs(keys.beta)).toEqual([...anonymous, 'acme/beta-cam/text-to-image'].sort());
    expect(await slugs(keys.vip)).toEqual([...anonymous, 'acme/secret-cam/text-to-image'].sort());
    const bad = await svc.call('/v1/catalog/models', { key: `gjk_${'x'.repeat(40)}` });
    expect(bad.status).toBe(401);
  });

  it('the catalog lists ignore query parameters they do not know, as every other read does', async () => {
    for (const path of ['/v1/catalog/models?limit=1&_=17', '/v1/catalog/providers?foo=bar']) {
      const res = await svc.call(path);
      expect([path, res.status]).toEqual([path, 200]);
    }
    expect(await slugs()).toEqual(
      ((await (await svc.call('/v1/catalog/models?cachebust=1')).json()) as Array<{ slug: string }>)
        .map((m) => m.slug)
        .sort(),
    );
  });

  it('4.7 the list is sent gzipped to a client that accepts it, as plain JSON otherwise: the same document', async () => {
    const raw = async (encoding: string, key?: string) => {
      // node:http, not fetch: fetch decompresses on its own and hides the encoding.
      const headers = { 'accept-encoding': encoding, ...(key ? { authorization: `Bearer ${key}` } : {}) };
      const res = await new Promise<IncomingMessage>((resolve, reject) =>
        get(`${svc.api.url}/v1/catalog/models`, { headers }, resolve).on('error', reject),
      );
      return { headers: res.headers, bytes: Buffer.concat(await res.toArray()) };
    };
    for (const key of [undefined, keys.beta, keys.discounted]) {
      const plain = await raw('identity', key);
      expect(plain.headers['content-encoding']).toBeUndefined();
      const zipped = await raw('br;q=1, gzip;q=0.5', key);
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers.vary).toMatch(/accept-encoding/i);
      expect(zipped.bytes.length).toBeLessThan(plain.bytes.length);
      expect(JSON.parse(gunzipSync(zipped.bytes).toString())).toEqual(JSON.parse(plain.bytes.toString()));
      // A refusal of gzip is honoured.
      expect((await raw('gzip;q=0', key)).headers['content-encoding']).toBeUndefined();
    }
    // Each account's own answer: the beta segment's model shows only to the beta account.
    const list = async (key?: string) => JSON.parse(gunzipSync((await raw('gzip', key)).bytes).toString());
    expect((await list(keys.beta)).map((m: { slug: string }) => m.slug)).toContain(
      'acme/beta-cam/text-to-image',
    );
    expect((await list(keys.plain)).map((m: { slug: string }) => m.slug)).not.toContain(
      'acme/beta-cam/text-to-image',
    );
  });

  it("4.7 items have exactly the fields of 2.6, with the caller's discount in the price", async () => {
    const [item] = (await (await svc.call('/v1/catalog/models?capability=text-to-image')).json()) as Array<
      Record<string, unknown>
    >;
    expect(Object.keys(item!).sort()).toEqual([
      'capability',
      'category',
      'pricing',
      'provider',
      'ratings',
      'slug',
      'tags',
    ]);
    expect(item).toMatchObject({
      slug: 'genjobs/reference-image/text-to-image',
      pricing: { baseCredits: 134_000, unit: 'per_generation' },
    });
    const mine = await (
      await svc.call('/v1/catalog/models?capability=text-to-image', { key: keys.discounted })
    ).json();
    expect(mine[0].pricing.baseCredits).toBe(100_500);
  });

  it('4.7 and 4.8 answers made for a key are private to it; anonymous ones may be cached by anyone', async () => {
    for (const path of ['/v1/catalog/models', '/v1/catalog/models/genjobs/reference-image']) {
      const personal = await svc.call(path, { key: keys.vip });
      expect(personal.headers.get('cache-control')).toBe('private');
      expect(personal.headers.get('vary')).toMatch(/Authorization/);
      const anonymous = await svc.call(path);
      expect(anonymous.headers.get('cache-control')).toBeNull();
      expect(anonymous.headers.get('vary')).toMatch(/Authorization/);
    }
  });

  it('4.8 resolves the two-part slug to the default capability and lists siblings', async () => {
    const two = await (await svc.call('/v1/catalog/models/genjobs/reference-image')).json();
    expect(two.slug).toBe('genjobs/reference-image/text-to-image');
    expect(Object.keys(two).sort()).toEqual([
      'capability',
      'category',
      'description',
      'inputSchema',
      'name',
      'pricing',
      'provider',
      'siblings',
      'slug',
    ]);
    expect(two.siblings).toEqual([{ slug: 'genjobs/reference-image/edit-image', capability: 'edit-image' }]);
    expect(two.inputSchema.required).toEqual(['prompt']);
    const three = await (await svc.call('/v1/catalog/models/genjobs/reference-image/edit-image')).json();
    expect(three.capability).toBe('edit-image');
    const hidden = await svc.call('/v1/catalog/models/acme/beta-cam');
    expect([hidden.status, (await hidden.json()).code]).toEqual([404, 'MODEL_NOT_FOUND']);
  });

  it('4.8 takes no credential: a key that does not authenticate is ignored, one that does personalizes', async () => {
    const beta = '/v1/catalog/models/acme/beta-cam';
    const image = '/v1/catalog/models/genjobs/reference-image';
    const unknownKey = `${keys.beta.slice(0, -4)}zzzz`;
    for (const authorization of [`Bearer ${unknownKey}`, 'Bearer junk', 'Basic dXNlcjpwYXNz']) {
      const res = await svc.call(image, { headers: { authorization } });
      expect([authorization, res.status]).toEqual([authorization, 200]);
      expect((await res.json()).slug).toBe('genjobs/reference-image/text-to-image');
      // Answered as for an anonymous caller: the segment model stays hidden.
      expect((await svc.call(beta, { headers: { authorization } })).status).toBe(404);
    }
    expect((await svc.call(beta, { key: keys.beta })).status).toBe(200);
    // The list (4.7), whose token is optional rather than absent, still refuses a bad one.
    const list = await svc.call('/v1/catalog/models', { headers: { authorization: 'Bearer junk' } });
    expect([list.status, (await list.json()).code]).toEqual([401, 'INVALID_API_KEY']);
  });

  it('4.9 and 4.10 list providers with models, and one provider with its models', async () => {
    const providers = await (await svc.call('/v1/catalog/providers')).json();
    // acme has only segment/private models, so anonymously it has none and is left out.
    expect(providers.map((p: { id: string }) => p.id)).toEqual(['genjobs']);
    expect(providers[0]).toMatchObject({ modelCount: 3, color: expect.stringMatching(/^#/) });
    const detail = await (await svc.call('/v1/catalog/providers/genjobs')).json();
    expect(detail.models).toHaveLength(3);
    const missing = await svc.call('/v1/catalog/providers/nope');
    expect([missing.status, (await missing.json()).code]).toEqual([404, 'NOT_FOUND']);
  });

  it('4.11 and 4.12 list capability groups in order and categories with live counts', async () => {
    const groups = await (await svc.call('/v1/catalog/capability-groups')).json();
    expect(groups.map((g: { id: string }) => g.id)).toEqual([
      'text-to-video',
      'image-to-video',
      'text-to-image',
    ]);
    expect(groups.map((g: { order: number }) => g.order)).toEqual(
      [...groups.map((g: { order: number }) => g.order)].sort((a, b) => a - b),
    );
    const cats = await (await svc.call('/v1/catalog/categories')).json();
    expect(cats).toEqual([
      expect.objectContaining({ id: 'video', modelCount: 1 }),
      expect.objectContaining({ id: 'image', modelCount: 2 }),
    ]);
  });

  it('4.13 and 4.14 list what the key may use, with x-api-key and list_models, cached 5 minutes', async () => {
    const res = await svc.call('/v1/models', { headers: { 'x-api-key': keys.vip } });
    expect(res.headers.get('cache-control')).toBe('private, max-age=300');
    expect(res.headers.get('vary')).toBe('x-api-key, Authorization'); // each key's listing is its own
    const { models } = await res.json();
    const secret = models.find((m: { id: string }) => m.id === 'acme/secret-cam/text-to-image');
    expect(secret).toEqual({
      id: 'acme/secret-cam/text-to-image',
      providerId: 'acme',
      providerName: 'Acme',
      name: 'Secret Cam',
      description: '',
      category: 'image',
      currentVersion: 'v1.0',
      versionCount: 1,
      currentVersionPricing: { baseCredits: 500_000, defaultCostMicroCents: 500_000, unit: 'per_generation' },
    });
    const beta = await (
      await svc.call('/v1/providers/acme/models', { headers: { 'x-api-key': keys.beta } })
    ).json();
    expect(beta.provider).toMatchObject({ id: 'acme', categories: ['image'], isActive: true });
    expect(beta.models).toEqual([
      expect.objectContaining({ id: 'acme/beta-cam/text-to-image', currentVersion: 'v1.1', versionCount: 3 }),
    ]);
    expect(beta.models[0]).not.toHaveProperty('providerId');
    // A Bearer key works too (a client made from the OpenAPI document may send its key one
    // way only), the same listing, and so does the same key both ways (Swagger UI authorized
    // with both schemes); two different keys are refused, as two of one header are.
    const bearer = await svc.call('/v1/models', { key: keys.vip });
    expect([bearer.status, (await bearer.json()).models]).toEqual([200, models]);
    const same = await svc.call('/v1/models', { key: keys.vip, headers: { 'x-api-key': keys.vip } });
    expect([same.status, (await same.json()).models]).toEqual([200, models]);
    const two = await svc.call('/v1/models', { key: keys.vip, headers: { 'x-api-key': keys.beta } });
    expect([two.status, (await two.json()).detail]).toEqual([
      401,
      'x-api-key and Authorization name two different keys; send one',
    ]);
    const badBearer = await svc.call('/v1/providers/acme/models', { key: `gjk_${'A'.repeat(40)}` });
    expect([badBearer.status, (await badBearer.json()).code]).toEqual([401, 'INVALID_API_KEY']);
    const noScope = await svc.account({ name: 'noscope' }, ['check_status']);
    const scoped = await svc.call('/v1/models', { headers: { 'x-api-key': noScope } });
    expect([scoped.status, (await scoped.json()).code]).toEqual([403, 'INSUFFICIENT_SCOPE']);
  });

  it("4.13 an account's new segment shows in its listing at once, not after the 5 minutes clients may keep it", async () => {
    const key = await svc.account({ name: 'joiner' });
    const ids = async () =>
      (
        (await (await svc.call('/v1/models', { headers: { 'x-api-key': key } })).json()).models as Array<{
          id: string;
        }>
      ).map((m) => m.id);
    expect(await ids()).not.toContain('acme/beta-cam/text-to-image');
    await svc.r.accounts.patch('joiner', { spec: { segments: ['beta'] } });
    await eventually(
      async () => (await ids()).includes('acme/beta-cam/text-to-image'),
      5_000,
      'beta model listed',
    );
  });

  it('submit: a private model without access is 403 MODEL_ACCESS_DENIED, a segment model outside the segment 404', async () => {
    const submit = (key: string, model: string) =>
      svc.call('/v1/jobs/submit', { method: 'POST', key, json: { model, input: { prompt: 'x' } } });
    const denied = await submit(keys.plain, 'acme/secret-cam/text-to-image');
    expect([denied.status, (await denied.json()).code]).toEqual([403, 'MODEL_ACCESS_DENIED']);
    const hidden = await submit(keys.plain, 'acme/beta-cam/text-to-image');
    expect([hidden.status, (await hidden.json()).code]).toEqual([404, 'MODEL_NOT_FOUND']);
    expect((await submit(keys.vip, 'acme/secret-cam/text-to-image')).status).toBe(200);
    const beta = await (await submit(keys.beta, 'acme/beta-cam/text-to-image')).json();
    expect(beta.costMicroCents).toBe(100_000);
  });

  it('a ConfigMap edit is served within 2 s; a broken one keeps the last good catalog and leaves an Event', async () => {
    const extra = oneModel('new-cam');
    const edited = Date.now();
    await installAcme(acme(extra));
    await eventually(
      async () => (await slugs()).includes('acme/new-cam/text-to-image'),
      2_000,
      'the new model served',
    );
    expect(Date.now() - edited).toBeLessThan(2_000);

    await installAcme(`${acme(extra)}\n  - provider: nobody\n    name: broken\n`);
    /** The catalog ConfigMap's Event of this reason, once it is there. */
    const eventOf = (reason: string) =>
      eventually(
        async () => {
          const list = await svc.kube.core.listNamespacedEvent({ namespace: svc.kube.namespace });
          return list.items.find((e) => e.involvedObject.name === 'catalog-acme' && e.reason === reason);
        },
        5_000,
        `a ${reason} event`,
      );
    const event = await eventOf('CatalogInvalid');
    expect(event.type).toBe('Warning');
    expect(event.message).toMatch(/previous catalog stays/);
    expect(await slugs()).toContain('acme/new-cam/text-to-image');
    const metrics = await (await fetch(`${svc.api.url}/metrics`)).text();
    expect(metrics).toMatch(/genjobs_catalog_reloads_total\{result="error"\} [1-9]/);
    // Fixed: a Normal Event says the Warning is over (it stays listed for an hour).
    await installAcme(acme(extra));
    const loaded = await eventOf('CatalogLoaded');
    expect(loaded.type).toBe('Normal');
  });

  it("an Idempotency-Key's job still answers its replay once its model has left the catalog", async () => {
    const gone = oneModel('gone-cam');
    await installAcme(acme(gone));
    const slug = 'acme/gone-cam/text-to-image';
    await eventually(() => svc.api.catalog()?.variantsBySlug.has(slug), 5_000, 'gone-cam served');
    const send = (model: string, key = 'retry-after-removal') =>
      svc.call('/v1/jobs/submit', {
        method: 'POST',
        key: keys.plain,
        headers: { 'idempotency-key': key },
        json: { model, input: { prompt: 'kept' } },
      });
    const first = await send(slug);
    expect(first.status).toBe(200);
    const made = await first.json();
    await installAcme(acme());
    await eventually(() => !svc.api.catalog()?.variantsBySlug.has(slug), 5_000, 'gone-cam removed');
    const replay = await send(slug);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await replay.json()).jobId).toBe(made.jobId);
    // Without a job of that key, or with one of another model, the model's refusal stands.
    expect((await send(slug, 'never-used')).status).toBe(404);
    expect((await send('acme/other-gone/text-to-image')).status).toBe(404);
  });
});
