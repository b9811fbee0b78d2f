import { randomBytes } from 'node:crypto';
import { jobOutputKey } from '../blob/keys.ts';
import { uploadWithGrant } from '../blob/upload-client.ts';
import { assertOutputName, type OutputSink } from './sink.ts';

/**
 * Stores outputs in the blob store through the api's /files endpoint with the prefix grant
 * the controller put in the Pod: the worker can write under its job's prefix and nowhere
 * else, and holds no other credential.
 */
export class BlobSink implements OutputSink {
  private readonly jobId: string;
  private readonly uploadUrl: string;
  private readonly publicUrl: string;
  private readonly grant: string;
  private readonly fetchImpl: typeof fetch;
  /**
   * A random folder per attempt: output URLs are public, so their names must not be
   * guessable from the job id (a job cancelled or failed must give no free output).
   */
  private readonly folder = randomBytes(16).toString('hex');

  constructor(o: {
    jobId: string;
    uploadUrl: string;
    publicUrl: string;
    grant: string;
    fetch?: typeof fetch;
  }) {
    this.jobId = o.jobId;
    this.uploadUrl = o.uploadUrl;
    this.publicUrl = o.publicUrl.replace(/\/+$/, '');
    this.grant = o.grant;
    this.fetchImpl = o.fetch ?? fetch;
  }

  async put(name: string, file: string, contentType: string): Promise<string> {
    assertOutputName(name);
    const key = jobOutputKey(this.jobId, `${this.folder}/${name}`);
    await uploadWithGrant(this.uploadUrl, this.grant, key, file, contentType, this.fetchImpl);
    return `${this.publicUrl}/${key}`;
  }
}
