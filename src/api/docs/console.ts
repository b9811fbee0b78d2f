/**
 * The docs page's script (served as /docs/console.js, so the page needs no inline script):
 * renders the reference with Swagger UI against this origin, authorizes it with the pasted
 * key, and runs the quick-submit console, which follows the job's event stream with fetch
 * (EventSource cannot send an Authorization header). Every address starts with the path the
 * page's script tag names (data-base: '' at the root, '/genjobs' behind a proxy's prefix).
 */
export const CONSOLE_SCRIPT = `'use strict';
(async () => {
  const $ = (id) => document.getElementById(id);
  const base = document.currentScript.dataset.base || '';
  // The quick start's address is the one this page was reached at.
  $('origin').textContent = location.origin + base;
  const spec = await (await fetch(base + '/v1/openapi.json')).json();
  spec.servers = [{ url: location.origin + base }];
  const ui = SwaggerUIBundle({
    spec,
    dom_id: '#reference',
    deepLinking: true,
    docExpansion: 'list',
    tryItOutEnabled: true,
    persistAuthorization: false,
  });
  // The pasted key authorizes every operation, whichever way it takes the key; an emptied
  // field signs the reference out.
  const authorize = () => {
    const key = $('key').value.trim();
    if (!key) {
      // Only schemes signed in (Swagger UI's logout of one that is not throws).
      const signedIn = Object.keys(ui.authSelectors.authorized().toJS());
      if (signedIn.length > 0) ui.authActions.logout(signedIn);
      return;
    }
    ui.preauthorizeApiKey('bearer', key);
    ui.preauthorizeApiKey('apiKeyHeader', key);
  };
  $('key').addEventListener('change', authorize);

  const models = await (await fetch(base + '/v1/catalog/models')).json();
  for (const m of models) $('model').add(new Option(m.slug, m.slug));

  const log = (line) => {
    $('events').textContent += line + '\\n';
    $('events').scrollTop = $('events').scrollHeight;
  };
  const headers = () => ({ authorization: 'Bearer ' + $('key').value.trim() });
  // A finished job's files, as links (http and https addresses only).
  const showOutputs = (job) =>
    $('outputs').replaceChildren(
      ...(job.outputs ?? [])
        .filter((o) => /^https?:/i.test(o.url))
        .map((o) => {
          const a = document.createElement('a');
          a.href = o.url;
          a.textContent = 'Open the ' + o.type + ': ' + o.url;
          a.target = '_blank';
          a.rel = 'noopener';
          return a;
        }),
    );

  const TERMINAL = ['completed', 'failed', 'cancelled'];
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  // The stream of the job submitted last: a new Submit ends the one before.
  let following = null;

  // Follows the job's events until its terminal record. A stream that ends before it (an api
  // restart, a proxy's timeout, a network change) is opened again with Last-Event-ID, so the
  // api sends where the job is now; tries with a growing pause while nothing answers.
  async function follow(jobId) {
    following?.abort();
    const stop = new AbortController();
    following = stop;
    let lastId = null;
    let status = null;
    for (let failures = 0; !stop.signal.aborted; ) {
      try {
        const res = await fetch(base + '/v1/jobs/' + encodeURIComponent(jobId) + '/events', {
          headers: { ...headers(), ...(lastId ? { 'last-event-id': lastId } : {}) },
          signal: stop.signal,
        });
        if (res.status === 204) return log('stream ended: the job had finished');
        if (!res.ok) return log('events: HTTP ' + res.status + ' ' + (await res.text()));
        failures = 0;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf('\\n\\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const lines = block.split('\\n');
            const id = lines.find((l) => l.startsWith('id:'));
            const data = lines.filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\\n');
            if (!data) continue;
            if (id) lastId = id.slice(3).trim();
            const job = JSON.parse(data);
            status = job.status;
            const extra = [
              job.queuePosition !== undefined ? 'queue ' + job.queuePosition : '',
              job.estimatedCompletionTime ? 'ETA ' + job.estimatedCompletionTime : '',
              job.output ? 'output ' + job.output : '',
              job.error ? job.error.code + ': ' + job.error.message : '',
            ].filter(Boolean).join('  ');
            log(new Date().toLocaleTimeString() + '  ' + job.status + '  ' + extra);
            showOutputs(job);
          }
        }
      } catch (err) {
        if (stop.signal.aborted) return;
        failures++;
        if (failures > 30) return log('stream lost (' + err.message + '); the job goes on: look it up by its id');
      }
      if (TERMINAL.includes(status)) return log('stream ended');
      log('stream interrupted; reconnecting');
      await sleep(Math.min(10_000, 1_000 * 2 ** Math.max(0, failures - 1)));
    }
  }

  // crypto.randomUUID exists on secure pages only (https, localhost); the key needs none of its format.
  const newKey = () =>
    Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  // A submit whose outcome is unknown (no answer, a 5xx) keeps its key for the same body, so
  // a second click gets that job, if it was made, rather than a second one.
  let unsure = null;

  $('submit').addEventListener('click', async () => {
    authorize();
    $('events').textContent = '';
    $('outputs').replaceChildren();
    if (!$('key').value.trim()) return log('paste an API key above first (dev mode: the file api-key in $GENJOBS_DEV_DIR, default ~/.genjobs/dev)');
    let input;
    try {
      input = JSON.parse($('input').value);
    } catch {
      return log('the input is not valid JSON');
    }
    const sent = JSON.stringify({ model: $('model').value, input });
    const key = unsure && unsure.sent === sent ? unsure.key : newKey();
    unsure = { sent, key };
    const maybe = ': the job may have been made; Submit again (the same model and input) gets it rather than a second one';
    let res;
    try {
      res = await fetch(base + '/v1/jobs/submit', {
        method: 'POST',
        headers: { ...headers(), 'content-type': 'application/json', 'idempotency-key': key },
        body: sent,
      });
    } catch (err) {
      return log('submit: no answer (' + err.message + ')' + maybe);
    }
    // Not JSON when something in front of the api answered (a proxy's error page): its title says what.
    const text = await res.text();
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      const title = /<title>([^<]*)<\\/title>/i.exec(text);
      const said = title ? title[1].trim() : text.replace(/\\s+/g, ' ').trim().slice(0, 200);
      if (res.status < 500) unsure = null;
      return log('submit: HTTP ' + res.status + ' from something in front of the api (' + said + ')' + (res.status >= 500 ? maybe : ''));
    }
    if (res.status < 500) unsure = null;
    if (!res.ok) return log('submit: ' + res.status + ' ' + body.code + ': ' + body.detail + (res.status >= 500 ? maybe : ''));
    $('job-id').textContent = body.jobId;
    log('submitted ' + body.jobId + ', ' + body.costMicroCents + ' micro-cents');
    await follow(body.jobId);
  });
})();
`;
