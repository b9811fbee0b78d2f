/**
 * The HTML of GET /docs. Static: the key never reaches the server except as a request's
 * credential. `base` is the path the api is published under (GENJOBS_PUBLIC_URL's, '' at the
 * root, '/genjobs' behind a proxy that strips that prefix): every address of the page has it.
 */
export function docsPage(basePath = ''): string {
  const base = escapeHtml(basePath);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>genjobs API</title>
<link rel="icon" type="image/png" href="${base}/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="${base}/docs/assets/swagger-ui.css">
<style>
  body { margin: 0; font-family: system-ui, sans-serif; color: #1f2933; }
  header, section.guide { max-width: 1400px; margin: 0 auto; padding: 0 20px; }
  header h1 { margin: 24px 0 4px; }
  pre, code { font-family: ui-monospace, monospace; font-size: 13px; }
  .guide pre { background: #f4f5f7; padding: 10px 12px; overflow-x: auto; border-radius: 4px; }
  #outputs a { display: block; overflow-wrap: anywhere; }
  /* A narrow screen: the reference scrolls inside itself, the page never sideways. */
  #reference .responses-inner, #reference .opblock-body { overflow-x: auto; }
  @media (max-width: 700px) { #reference .response-col_links { display: none; } }
  .console { border: 1px solid #d9dde3; border-radius: 6px; padding: 12px 16px; margin: 16px 0; }
  .console label { display: block; margin: 8px 0 4px; font-weight: 600; }
  .console input, .console select { width: 100%; max-width: 640px; padding: 6px; font-size: 14px; box-sizing: border-box; }
  .console button { margin-top: 10px; padding: 6px 14px; font-size: 14px; }
  #events { min-height: 3em; max-height: 300px; overflow-y: auto; }
</style>
</head>
<body>
<header>
  <h1>genjobs API</h1>
  <p>Asynchronous image and video generation jobs. The reference below is rendered from
  <a href="${base}/v1/openapi.json">${base}/v1/openapi.json</a>.</p>
</header>
<main>
<section class="guide">
  <h2>Quick start</h2>
  <p>Every job request carries an API key: <code>Authorization: Bearer gjk_…</code>
  (<code>/v1/models</code> also takes it as <code>x-api-key</code>). Your operator gives you the key; in dev
  mode it is the file <code>api-key</code> in <code>$GENJOBS_DEV_DIR</code> (default
  <code>~/.genjobs/dev</code>). Set the two variables the examples use, then submit a job and
  follow it:</p>
<pre tabindex="0">export GENJOBS_URL=<span id="origin">https://genjobs.example.com</span>   # this page's address, without /docs
export GENJOBS_API_KEY=gjk_…
curl -s -X POST $GENJOBS_URL/v1/jobs/submit -H "authorization: Bearer $GENJOBS_API_KEY" \\
  -H 'content-type: application/json' \\
  -d '{"model":"genjobs/reference-image/text-to-image","input":{"prompt":"a lighthouse"}}'
JOB_ID=…   # the jobId the submit answered
curl -N $GENJOBS_URL/v1/jobs/$JOB_ID/events -H "authorization: Bearer $GENJOBS_API_KEY"</pre>
  <p>Money (<code>costMicroCents</code>, <code>balanceMicroCents</code>, every
  <code>…MicroCents</code> field) is a whole number of micro-cents: 1,000,000 micro-cents are $1.</p>
  <p>Or with the command line or the TypeScript client, both in the genjobs repository (not an
  npm registry package): in a checkout, <code>npm ci &amp;&amp; npm run build</code>, then
  <code>npx genjobs run MODEL --input key=value --download .</code> there
  (<code>npx genjobs models get MODEL</code> lists its input fields, <code>npx genjobs estimate MODEL --input key=value</code>
  prices a job part by part), or
  <code>npm install /path/to/genjobs</code> in your app:</p>
<pre tabindex="0">import { createClient } from 'genjobs/client';
const genjobs = createClient({ baseUrl: process.env.GENJOBS_URL!, apiKey: process.env.GENJOBS_API_KEY! });
const job = await genjobs.jobs.run('genjobs/reference-image/text-to-image', { prompt: 'a lighthouse' });</pre>
  <p>Webhooks: a submit with <code>webhookUrl</code> (https) gets a signed POST when the job
  completes or fails, in the Standard Webhooks format (<code>webhook-id</code>,
  <code>webhook-timestamp</code>, <code>webhook-signature</code>), so any Standard Webhooks
  library verifies it: HMAC-SHA256 of <code>id.timestamp.body</code> keyed with the base64 after
  <code>whsec_</code>, decoded; the timestamp is in seconds (refuse one more than 5 minutes from
  your clock); the header may hold several space-separated <code>v1,…</code> signatures (during
  a secret rotation): accept any that matches. The <code>whsec_…</code> secret is your account's:
  your operator gives it to you (<code>genjobs accounts webhook-secret</code>).</p>
  <p>From a browser: call the API from your backend, which holds the key (an API key in a page
  is anyone's who opens it); the API sends no CORS headers. A page may upload a file straight to
  storage: your backend presigns (<code>POST /v1/uploads/presign</code>) and hands the page the
  <code>uploadUrl</code>, which the page PUTs with the same <code>Content-Type</code>; the address
  is the permission, so it works from any origin, as do reads of <code>fileUrl</code> and of job
  outputs. A browser <code>EventSource</code> cannot send a key: relay the events stream through
  your backend, or poll <code>GET /v1/jobs/{jobId}</code>.</p>
  <div class="console">
    <h2>Console</h2>
    <p>Submits a job and follows its events live ("Try it out" on the events stream below shows
    it only once the stream ends).</p>
    <label for="key">API key (kept in this page only; it also authorizes "Try it out" below)</label>
    <input id="key" type="password" autocomplete="off" placeholder="gjk_…">
    <label for="model">Model</label>
    <select id="model"></select>
    <label for="input">Input (JSON)</label>
    <input id="input" value='{"prompt":"a lighthouse at dusk"}'>
    <button id="submit" type="button">Submit and follow</button>
    <p>Job: <code id="job-id">none yet</code></p>
    <pre id="events" role="log" aria-live="polite" tabindex="0"></pre>
    <p id="outputs"></p>
  </div>
  <h2>Reference</h2>
</section>
<div id="reference"></div>
</main>
<script src="${base}/docs/assets/swagger-ui-bundle.js"></script>
<script src="${base}/docs/console.js" data-base="${base}"></script>
</body>
</html>
`;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
