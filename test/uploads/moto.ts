import { type ChildProcess, spawn } from 'node:child_process';
import { CreateBucketCommand, PutBucketPolicyCommand } from '@aws-sdk/client-s3';
import { createS3Client } from '../../src/blob/s3-client.ts';

/** moto's S3 accepts any credentials; the SDK's default chain reads these from the environment. */
export const MOTO_CREDENTIALS = { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing' };

/** A local S3-compatible server (moto, installed by `npm run setup`) with one public-read bucket. */
export async function startMoto(bucket: string): Promise<{ endpoint: string; stop(): void }> {
  const moto: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const scan = (chunk: Buffer) => {
      seen += chunk;
      const match = /Running on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match?.[1]) resolve(match[1]);
    };
    moto.stdout?.on('data', scan);
    moto.stderr?.on('data', scan);
    moto.on('exit', () => reject(new Error(`moto_server exited: ${seen}`)));
  });
  const client = createS3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  const read = {
    Effect: 'Allow',
    Principal: '*',
    Action: 's3:GetObject',
    Resource: `arn:aws:s3:::${bucket}/*`,
  };
  await client.send(
    new PutBucketPolicyCommand({ Bucket: bucket, Policy: JSON.stringify({ Statement: [read] }) }),
  );
  client.destroy();
  return { endpoint, stop: () => moto.kill() };
}
