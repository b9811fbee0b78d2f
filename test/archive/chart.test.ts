import { beforeAll, describe, expect, it } from 'vitest';
import { envOf, find, helm, type Manifest, render } from '../chart/helm.ts';

beforeAll(async () => {
  await helm();
}, 900_000);

const apps = (objects: Manifest[]) =>
  ['genjobs-api', 'genjobs-controller'].map((n) => find(objects, 'Deployment', n));

describe('chart: job history', () => {
  it('by default runs the bundled PostgreSQL and points both processes at it through a generated Secret', async () => {
    const { objects } = await render();
    const sts = find(objects, 'StatefulSet', 'genjobs-postgres');
    expect(sts.spec.replicas).toBe(1);
    expect(sts.spec.template.spec.containers[0].image).toBe('postgres:17');
    expect(sts.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 999 });
    expect(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('10Gi');
    const secret = find(objects, 'Secret', 'genjobs-archive');
    const url = Buffer.from(secret.data.url, 'base64').toString();
    const password = Buffer.from(secret.data.password, 'base64').toString();
    expect(url).toBe(`postgres://genjobs:${password}@genjobs-postgres:5432/genjobs`);
    for (const d of apps(objects)) {
      expect(envOf(d)).toMatchObject({
        GENJOBS_ARCHIVE: 'postgres',
        GENJOBS_ARCHIVE_URL: { secretKeyRef: { name: 'genjobs-archive', key: 'url' } },
        GENJOBS_KEEP_FINISHED: '10m',
        GENJOBS_RETENTION: '30d',
      });
    }
  });

  it('with an existing PostgreSQL: no StatefulSet, the Secret and CA the user gave', async () => {
    const { objects } = await render({
      archive: {
        postgres: { bundled: false, existingSecret: 'pg', urlKey: 'dsn', tls: { caSecret: 'pg-ca' } },
      },
    });
    expect(objects.some((o) => o.kind === 'StatefulSet')).toBe(false);
    expect(objects.some((o) => o.kind === 'Secret' && o.metadata.name === 'genjobs-archive')).toBe(false);
    for (const d of apps(objects)) {
      expect(envOf(d)).toMatchObject({
        GENJOBS_ARCHIVE_URL: { secretKeyRef: { name: 'pg', key: 'dsn' } },
        GENJOBS_ARCHIVE_TLS_CA_FILE: '/etc/genjobs/archive-ca/ca.crt',
      });
      const pod = d.spec.template.spec;
      expect(pod.volumes).toContainEqual({ name: 'archive-ca', secret: { secretName: 'pg-ca' } });
      expect(pod.containers[0].volumeMounts).toContainEqual({
        name: 'archive-ca',
        mountPath: '/etc/genjobs/archive-ca',
        readOnly: true,
      });
    }
  });

  it('off: jobs stay resources for jobs.ttl and nothing of the archive is rendered', async () => {
    const { objects } = await render({ archive: { enabled: false } });
    expect(objects.some((o) => o.kind === 'StatefulSet')).toBe(false);
    for (const d of apps(objects)) {
      const env = envOf(d);
      expect(env.GENJOBS_ARCHIVE).toBe('off');
      expect(env.GENJOBS_ARCHIVE_URL).toBeUndefined();
    }
  });

  it('alerts when the archive lags more than 15 minutes', async () => {
    const { objects } = await render({ metrics: { prometheusRule: { enabled: true } } });
    const rules = find(objects, 'PrometheusRule', 'genjobs').spec.groups[0].rules;
    const lag = rules.find((r: { alert: string }) => r.alert === 'GenjobsArchiveLagging');
    expect(lag.expr).toMatch(
      /max\(genjobs_archive_lag_seconds\{job="genjobs-controller",namespace="genjobs"\}\) > 900$/,
    );
  });
});
