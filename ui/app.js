// The dashboard's entry point: the session (log in at an OpenID provider cubd trusts, or by
// pasting a cub token), the header, and the pages by URL fragment:
//   #/                     Rollouts (filters: #/?space=BASE&state=STATE)
//   #/co/<base>/<name>     one ChangeOrder
//   #/review/<base>/<name> its change as a diff, and the viewer's vote (?space=SLUG)
//   #/space/<slug>         one Space: freezes, Releases with live status, history, Units
//   #/queue                Open promotions: queued promotions, and what waits for approvals
import * as api from './api.js';
import {h, errorText, fill} from './dom.js';
import {renderRollouts} from './rollouts.js';
import {renderChangeOrder} from './changeorder.js';
import {renderQueue} from './queue.js';
import {renderReview} from './review.js';
import {renderSpace} from './space.js';

const main = document.getElementById('main');
let who = null;
let stopPage = () => {};

function loginPage(error) {
  const token = h('input', {id: 'token', type: 'password', name: 'token', required: true,
    autocomplete: 'off', 'aria-describedby': 'token-help'});
  const status = h('div', {'aria-live': 'polite'}, error ? errorText(error) : null);
  const form = h('form', {class: 'login', 'aria-labelledby': 'login-title'},
    h('h1', {id: 'login-title'}, 'Log in to cub'),
    h('label', {for: 'token'}, 'API token'),
    token,
    h('p', {id: 'token-help', class: 'help'},
      'Paste a token from `cub token create` (or `cubd user create`). It is kept in an ',
      'HttpOnly session cookie, never in the page.'),
    h('button', {type: 'submit'}, 'Log in'),
    status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      who = await api.login(token.value.trim());
      token.value = '';
      route();
    } catch (err) {
      fill(status, errorText(err));
    }
  });
  const providers = h('section', {class: 'login', 'aria-labelledby': 'sso-title', hidden: true},
    h('h2', {id: 'sso-title'}, 'Log in with your account'));
  fill(main, providers, form);
  token.focus();
  api.loginIssuers().then((issuers) => {
    if (!issuers.length) return;
    for (const i of issuers) {
      providers.append(h('a', {class: 'button', href: api.issuerLoginUrl(i.Issuer)},
        `Log in at ${issuerName(i.Issuer)}`));
    }
    providers.append(h('p', {class: 'help'}, 'Or paste a token below.'));
    providers.hidden = false;
  }, (err) => fill(status, errorText(err)));
}

// An issuer's host (and port), as people know their provider; the URL if it does not parse.
function issuerName(issuer) {
  try {
    return new URL(issuer).host;
  } catch {
    return issuer;
  }
}

function header() {
  const nav = document.getElementById('nav');
  const whoEl = document.getElementById('who');
  nav.hidden = !who;
  if (!who) return fill(whoEl);
  const logout = h('button', {type: 'button', class: 'link'}, 'Log out');
  logout.addEventListener('click', async () => {
    try { await api.logout(); } catch { /* the cookie is cleared either way */ }
    who = null;
    route();
  });
  fill(whoEl, h('span', {id: 'username'}, who.User.Username), ' ', logout);
}

export function route() {
  stopPage();
  stopPage = () => {};
  header();
  if (!who) return loginPage();
  const [path, query] = (location.hash.slice(1) || '/').split('?');
  const params = new URLSearchParams(query || '');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const ctx = {main, who, onUnauthenticated: () => { who = null; route(); }};
  let stop;
  if (parts[0] === 'co' && parts.length === 3) stop = renderChangeOrder(ctx, parts[1], parts[2]);
  else if (parts[0] === 'review' && parts.length === 3) {
    stop = renderReview(ctx, parts[1], parts[2], params);
  } else if (parts[0] === 'space' && parts.length === 2) stop = renderSpace(ctx, parts[1]);
  else if (parts[0] === 'queue') stop = renderQueue(ctx);
  else stop = renderRollouts(ctx, params);
  stopPage = stop || (() => {});
  main.focus({preventScroll: true});
}

async function start() {
  window.addEventListener('hashchange', route);
  try {
    who = await api.resume();
  } catch (err) {
    who = null;
    header();
    return loginPage(err);
  }
  route();
}

start();
