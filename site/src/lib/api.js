// The local workbook server's API (scripts/server/workbook-server.js), seen
// from the page. Always same-origin relative URLs: the server refuses any
// other Origin or Host. A statically hosted copy of the site has no API, and
// every caller must cope with that.
import { useEffect, useState } from 'react';
import { readEvents } from './sse';

/** GET /api/labs, or null when the page is not served by the workbook server. */
async function fetchLabStates(signal) {
  try {
    const res = await fetch('/api/labs', { cache: 'no-store', headers: { accept: 'application/json' }, signal });
    if (!res.ok || !/json/.test(res.headers.get('content-type') || '')) return null;
    const body = await res.json();
    return Array.isArray(body.labs) ? body : null;
  } catch (err) {
    if (err.name === 'AbortError') throw err;
    return null;
  }
}

/**
 * { status: 'looking' | 'here' | 'absent', labs }
 * 'looking' also during server-side rendering: the static HTML says nothing
 * about the API, the browser finds out.
 */
export function useWorkbookApi() {
  const [state, setState] = useState({ status: 'looking', labs: [] });
  useEffect(() => {
    const controller = new AbortController();
    fetchLabStates(controller.signal)
      .then((body) => setState(body ? { status: 'here', labs: body.labs } : { status: 'absent', labs: [] }))
      .catch(() => {});
    return () => controller.abort();
  }, []);
  return state;
}

/** POST /api/labs/<slug>/check: queues a check of the learner's app; resolves to the job id. */
export async function startCheck(slug) {
  const res = await fetch(`/api/labs/${encodeURIComponent(slug)}/check`, { method: 'POST', cache: 'no-store' });
  const body = await res.json().catch(() => ({}));
  if (res.status !== 202 || !body.job) throw new Error(body.error || `the workbook server answered ${res.status}`);
  return body.job.id;
}

/**
 * Follows a job's events (queued, started, progress, result, error) until
 * its result or error. If the stream drops before that, it reconnects once:
 * the server replays the job's events from the start, so `onReplay` is
 * called first to let the caller forget what it had.
 */
export async function followCheck(jobId, { onEvent, onReplay, signal }) {
  const url = `/api/jobs/${jobId}/events`;
  let finished = false;
  const handle = (event) => {
    if (event.type === 'result' || event.type === 'error') finished = true;
    onEvent(event);
  };
  for (let attempt = 0; attempt < 2 && !finished; attempt++) {
    if (attempt > 0) onReplay();
    try {
      await readEvents(url, handle, signal);
    } catch (err) {
      if (err.name === 'AbortError') return;
      if (attempt > 0) throw err;
    }
  }
  if (!finished) throw new Error('the connection to the workbook server closed before the check finished');
}
