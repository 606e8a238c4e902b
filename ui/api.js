// The dashboard's one way to the server: the public REST/JSON API (docs/api.md), authenticated
// by the session cookie that POST /ui/session sets, with the session's CSRF token on every
// call. Anything the dashboard does, a script with a token can do through the same routes.

let csrf = '';

// An error answer of the API: `message` is the API's own wording.
export class ApiError extends Error {
  constructor(httpStatus, body) {
    super(body && body.message ? body.message : `HTTP ${httpStatus}`);
    this.httpStatus = httpStatus;
    this.status = body && body.status ? body.status : '';
  }
}

async function parse(resp) {
  const text = await resp.text();
  let body = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = {message: `HTTP ${resp.status}: ${text.slice(0, 200)}`};
  }
  if (!resp.ok) throw new ApiError(resp.status, body);
  return body;
}

function headers() {
  return {'Content-Type': 'application/json', 'X-CSRF-Token': csrf};
}

// Logs in with a cub token: the server checks it as every API call does. Returns WhoAmI.
export async function login(token) {
  const resp = await fetch('/ui/session', {
    method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({Token: token}),
  });
  const who = await parse(resp);
  csrf = who.CsrfToken;
  return who;
}

// The OpenID providers this cubd lets people log in at (GetLoginConfig, a public call), each
// {Issuer, ClientID, Scopes}. Sent without cookies: a stale session must not refuse it.
export async function loginIssuers() {
  const resp = await fetch('/v1/AuthService/GetLoginConfig', {
    method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}',
    credentials: 'omit',
  });
  const config = await parse(resp);
  return config.Issuers || [];
}

// Where the browser goes to log in at `issuer`: cubd's side of the authorization code flow
// (/ui/oidc/start), which comes back to the dashboard with a session.
export function issuerLoginUrl(issuer) {
  return `/ui/oidc/start?issuer=${encodeURIComponent(issuer)}`;
}

// The session the cookie already holds (a reloaded page), or null when there is none.
// index.html preloads this very request (same URL, method and credentials mode), so that the
// answer is on its way before the modules have run.
export async function resume() {
  const resp = await fetch('/ui/session');
  if (resp.status === 401) return null;
  const who = await parse(resp);
  csrf = who.CsrfToken;
  return who;
}

export async function logout() {
  await parse(await fetch('/ui/session', {method: 'DELETE', headers: headers()}));
  csrf = '';
}

// POST /v1/<service>/<method> with `body`; resolves to the response message as JSON.
export async function call(service, method, body = {}) {
  const resp = await fetch(`/v1/${service}/${method}`, {
    method: 'POST', headers: headers(), body: JSON.stringify(body),
  });
  return parse(resp);
}

// A List method's page of at least `want` rows where there are that many: ListChangeOrders
// with a Where over computed fields may answer a short (even empty) page that still carries a
// NextPageToken (docs/api.md, "Paging"), so the pages are followed, at most `maxCalls` of them.
// Resolves to {items, next}: the rows of the pages read, and the token after them.
export async function callRows(service, method, body, field, want, maxCalls = 10) {
  let items = [];
  let token = body.PageToken || '';
  for (let i = 0; i < maxCalls; i++) {
    const r = await call(service, method, {...body, Limit: want - items.length, PageToken: token});
    items = items.concat(r[field] || []);
    token = r.NextPageToken || '';
    if (!token || items.length >= want) break;
  }
  return {items, next: token};
}

// A server-streaming method as server-sent events: onMessage(message) for each, onEnd(error or
// null) once. Returns a function that stops it. (EventSource cannot POST or send headers, so
// the stream is read from fetch.)
export function stream(service, method, body, onMessage, onEnd) {
  const abort = new AbortController();
  (async () => {
    const resp = await fetch(`/v1/${service}/${method}`, {
      method: 'POST', headers: headers(), body: JSON.stringify(body), signal: abort.signal,
    });
    if (!resp.ok) return parse(resp);
    const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const {value, done} = await reader.read();
      if (done) return null;
      buf += value;
      let end;
      while ((end = buf.indexOf('\n\n')) >= 0) {
        const event = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const err = dispatch(event, onMessage);
        if (err) throw err;
      }
    }
  })().then(() => onEnd(null), (err) => { if (!abort.signal.aborted) onEnd(err); });
  return () => abort.abort();
}

// The first message of a server-streaming method, then the stream is closed: a snapshot of
// WatchChangeOrder without holding a connection open.
export function first(service, method, body) {
  return new Promise((resolve, reject) => {
    let done = false;
    const stop = stream(service, method, body, (msg) => {
      if (done) return;
      done = true;
      resolve(msg);
      stop();
    }, (err) => {
      if (done) return;
      done = true;
      reject(err || new Error(`${method} ended without a message`));
    });
  });
}

// One event: its data lines as JSON to onMessage, or an `event: error` as an ApiError.
function dispatch(event, onMessage) {
  let name = 'message';
  const data = [];
  for (const line of event.split('\n')) {
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (data.length === 0) return null;  // a keep-alive comment
  const msg = JSON.parse(data.join('\n'));
  if (name === 'error') return new ApiError(500, msg);
  onMessage(msg);
  return null;
}
