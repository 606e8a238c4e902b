// Completes a login at the test provider (provider.mjs) as a given user, the way a person in a
// browser would, with plain HTTP requests and a cookie jar: it follows redirects and submits the
// provider's real HTML forms (the device user-code confirmation, the login form, the consent
// form), filling in the username; any password is accepted.
//
// Usage: node interact.mjs --user NAME [--user-code CODE] URL
//   URL is either a device flow's verification_uri_complete (or verification_uri, then give
//   --user-code), or an authorization URL of the authorization-code flow. In the latter, the
//   provider finally redirects to the client's loopback redirect_uri; interact.mjs requests
//   it, so the waiting CLI receives the code. The URL is the last argument, so this works as
//   BROWSER="node tests/oidc/interact.mjs --user alice".
// Exits 0 when the provider said the sign-in succeeded (device) or the redirect_uri answered
// (code flow); else prints what went wrong on stderr and exits 1.
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: {
    user: { type: 'string' },
    'user-code': { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
if (!values.user || positionals.length === 0) {
  console.error('usage: node interact.mjs --user NAME [--user-code CODE] URL');
  process.exit(2);
}
const start = new URL(positionals[positionals.length - 1]);
const providerOrigin = start.origin;
const log = (...a) => values.verbose && console.error('interact:', ...a);

function fail(message) {
  console.error(`interact.mjs: ${message}`);
  process.exit(1);
}

// The cookie jar: one provider host, so name -> value is enough (a deleting Set-Cookie, with
// an expiry in the past, removes the cookie).
const jar = new Map();
function storeCookies(res) {
  const lines = typeof res.headers.getSetCookie === 'function'
    ? res.headers.getSetCookie()
    : (res.headers.get('set-cookie') ?? '').split(/,(?=\s*[^;,=\s]+=)/);
  for (const line of lines) {
    if (!line) continue;
    const [pair, ...attrs] = line.split(';');
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const expired = attrs.some((a) => {
      const [k, v] = a.split('=');
      const key = k.trim().toLowerCase();
      return (key === 'expires' && Date.parse(v) <= Date.now()) ||
        (key === 'max-age' && Number(v) <= 0);
    });
    if (expired || value === '') jar.delete(name);
    else jar.set(name, value);
  }
}
const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

function decodeEntities(s) {
  return s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&#x27;/g, "'")
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
function attr(tag, name) {
  const m = tag.match(new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i'));
  return m ? decodeEntities(m[1] ?? m[2] ?? m[3]) : undefined;
}

// The first <form> of the page: its action, method and the inputs inside it, with the
// username, password and user code filled in. Buttons outside the form (the device page's
// "Abort") are not part of the submission.
function parseForm(html, pageUrl) {
  const m = html.match(/<form\b[^>]*>([\s\S]*?)<\/form>/i);
  if (!m) return undefined;
  const formTag = m[0].slice(0, m[0].indexOf('>') + 1);
  const fields = new URLSearchParams();
  for (const input of m[1].match(/<input\b[^>]*>/gi) ?? []) {
    const name = attr(input, 'name');
    if (!name) continue;
    const type = (attr(input, 'type') ?? 'text').toLowerCase();
    let value = attr(input, 'value') ?? '';
    if (name === 'login') value = values.user;
    else if (type === 'password') value = 'any-password';
    else if (name === 'user_code' && !value) {
      if (!values['user-code']) fail('the provider asks for the user code: pass --user-code');
      value = values['user-code'];
    }
    fields.append(name, value);
  }
  return {
    action: new URL(attr(formTag, 'action') ?? pageUrl, pageUrl),
    method: (attr(formTag, 'method') ?? 'get').toUpperCase(),
    fields,
  };
}

let url = start;
let request = { method: 'GET' };
const seenForms = new Map();
for (let step = 0; step < 40; step++) {
  log(request.method, url.href);
  let res;
  try {
    res = await fetch(url, {
      ...request,
      redirect: 'manual',
      headers: { ...request.headers, cookie: cookieHeader(), accept: 'text/html' },
    });
  } catch (err) {
    fail(`${request.method} ${url.href} failed: ${err.cause?.message ?? err.message}`);
  }
  storeCookies(res);

  if (url.origin !== providerOrigin) {
    // The client's loopback redirect_uri: the CLI got the code (or the error) from us.
    const body = await res.text();
    if (!res.ok) fail(`the redirect_uri ${url.href} answered ${res.status}: ${body.slice(0, 300)}`);
    log('redirect_uri answered', res.status);
    process.exit(0);
  }

  if (res.status >= 300 && res.status < 400) {
    const location = res.headers.get('location');
    if (!location) fail(`${url.href} answered ${res.status} without a Location`);
    url = new URL(location, url);
    request = { method: 'GET' };
    if (url.origin !== providerOrigin && url.searchParams.has('error')) {
      // Still deliver it, so the CLI can report it, but this login failed.
      await fetch(url).catch(() => {});
      fail(`the provider refused the login: ${url.searchParams.get('error')}: ` +
        `${url.searchParams.get('error_description') ?? ''}`);
    }
    continue;
  }

  const html = await res.text();
  if (res.status >= 400) {
    fail(`${url.href} answered ${res.status}: ${html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').slice(0, 400)}`);
  }
  const form = parseForm(html, url);
  if (!form) {
    if (/Sign-in Success/i.test(html)) {
      log('device sign-in succeeded');
      process.exit(0);
    }
    fail(`${url.href} showed a page with neither a form nor success: ` +
      `${html.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').slice(0, 400)}`);
  }
  // The same form again means the provider refused what we sent (a wrong user code...).
  const key = `${form.action.pathname}?${[...form.fields.keys()].join(',')}`;
  seenForms.set(key, (seenForms.get(key) ?? 0) + 1);
  if (seenForms.get(key) > 2) {
    fail(`the provider keeps showing the form at ${form.action.href}: ` +
      `${html.replace(/<style[\s\S]*?<\/style>/gi, '').replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').slice(0, 400)}`);
  }
  url = form.action;
  if (form.method === 'POST') {
    request = {
      method: 'POST',
      body: form.fields.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    };
  } else {
    for (const [k, v] of form.fields) url.searchParams.set(k, v);
    request = { method: 'GET' };
  }
}
fail('gave up after 40 requests without finishing the login');
