// One Space: the freezes in force over it, its Releases with their live status (what the GitOps
// operator last reported) and scan findings, its deployment history, and its Units. The lists
// the API pages (ListReleases, ListUnits) are paged by the server, a small page at a time.
// Releases and history are polled (10 s): the API has no stream for them.
//   #/space/<slug>
import * as api from './api.js';
import {h, errorText, fill, when} from './dom.js';
import {freezesInForce} from './freezes.js';
import {pager} from './pager.js';
import {coHref, stackable, thead} from './widgets.js';

const POLL_MS = 10000;
const RELEASES_PER_PAGE = 5;
const UNITS_PER_PAGE = 20;

// "BASE/NAME" as a link to its ChangeOrder page; '' stays empty.
function coCell(ref) {
  if (!ref) return h('td', {}, '—');
  const [base, ...rest] = ref.split('/');
  return h('td', {}, h('a', {href: coHref(base, rest.join('/'))}, ref));
}

// Scan findings as "1 critical, 2 high"; the severities in order of weight.
export function findings(v) {
  const order = ['critical', 'high', 'medium', 'low'];
  const keys = Object.keys(v || {}).sort((a, b) => order.indexOf(a) - order.indexOf(b));
  if (keys.length === 0) return '';
  return keys.map((k) => `${v[k]} ${k}`).join(', ');
}

// Live status in words, with a class per health for the colour (the words carry it too).
function live(ls) {
  if (!ls || (!ls.Sync && !ls.Health)) return h('td', {class: 'live none'}, 'not reported');
  return h('td', {class: `live ${(ls.Health || '').toLowerCase()}`},
    h('strong', {}, [ls.Sync, ls.Health].filter(Boolean).join(', ')),
    ls.Operation ? ` (${ls.Operation})` : '',
    ls.Message ? h('div', {class: 'message'}, ls.Message) : null,
    ls.ReportedAt ? h('div', {class: 'message'}, `reported ${when(ls.ReportedAt)}`) : null);
}

function releaseRow(r) {
  return h('tr', {'data-release': r.ReleaseNum},
    h('th', {scope: 'row'}, `#${r.ReleaseNum}`), coCell(r.ChangeOrder),
    h('td', {}, r.PublishedBy, h('div', {class: 'message'}, when(r.PublishedAt))),
    h('td', {class: 'delivery'}, r.DeliveryState || '', r.DeliveryError ?
      h('div', {class: 'error'}, r.DeliveryError) : null),
    live(r.LiveStatus),
    h('td', {class: 'findings'}, findings(r.Vulnerabilities) ||
      (r.ScannedAt ? 'none found' : 'not scanned'),
    r.ScannedAt ? h('div', {class: 'message'}, `${r.ScannedBy}, ${when(r.ScannedAt)}`) : null));
}

function releases(space) {
  const body = h('tbody');
  const p = pager({
    what: 'Releases', empty: 'No Release has been published in this Space.',
    clear: () => fill(body),
    fetchPage: async (token) => {
      const r = await api.call('ReleaseService', 'ListReleases', {Space: space,
        Limit: RELEASES_PER_PAGE, PageToken: token});
      return {items: r.Releases || [], next: r.NextPageToken};
    },
    addRows: (list) => body.append(...list.map(releaseRow)),
  });
  const el = h('div', {}, h('div', {class: 'scroll'}, stackable(h('table', {class: 'releases'},
    h('caption', {}, 'Newest first; live status as the GitOps operator last reported it'),
    thead('Release', 'ChangeOrder', 'Published', 'Delivery', 'Live status', 'Scan findings'),
    body))), p.el);
  return {el, reload: p.reload};
}

function historyTable(deployments) {
  if (deployments.length === 0) return h('p', {class: 'empty'}, 'Nothing deployed yet.');
  return h('div', {class: 'scroll'}, stackable(h('table', {class: 'history'},
    h('caption', {}, 'The 16 most recent deployments, newest first'),
    thead('Release', 'ChangeOrder', 'Started', 'Healthy', 'Ended', 'Why it ended', 'Scan findings'),
    h('tbody', {}, deployments.map((d) => h('tr', {'data-release': d.ReleaseNum},
      h('th', {scope: 'row'}, `#${d.ReleaseNum}`), coCell(d.ChangeOrder),
      h('td', {}, when(d.StartedAt)), h('td', {}, when(d.HealthyAt) || '—'),
      h('td', {}, when(d.EndedAt) || '—'),
      h('td', {class: `end ${(d.EndReason || 'current').toLowerCase()}`},
        d.EndReason || (d.EndedAt ? '' : 'current')),
      h('td', {}, findings(d.Vulnerabilities) || (d.ScannedAt ? 'none found' : '—'))))))));
}

function freezeList(list) {
  if (list.length === 0) return h('p', {class: 'empty'}, 'No freeze is in force here.');
  return h('ul', {class: 'freezes'}, list.map(({freeze: f, unsure}) => h('li',
    {'data-freeze': f.Slug},
    h('strong', {}, `${f.Space}/${f.Slug}`), `: ${f.Reason}`,
    h('div', {class: 'message'},
      f.ChangeWorkflow ? `covers ${f.Stages && f.Stages.length ? `Stage(s) ${f.Stages.join(', ')}` +
        ' of' : 'every Stage of'} ${f.ChangeWorkflow}` : 'covers every Space',
      f.InForceUntil ? `; in force until ${when(f.InForceUntil)}` : '; in force until deleted',
      unsure ? `; whether it covers this Space is not known: ${unsure}` : ''))));
}

function unitRows(units) {
  return units.map((u) => h('tr', {'data-unit': u.Slug},
    h('th', {scope: 'row'}, u.Slug), h('td', {}, u.ToolchainType),
    h('td', {}, String(u.HeadRevisionNum)), h('td', {}, String(u.LastReleasedRevisionNum || '—')),
    h('td', {}, when(u.UpdatedAt))));
}

export function renderSpace(ctx, slug) {
  const parts = {summary: h('div'), freezes: h('div', {id: 'freezes'}), history: h('div'),
    units: h('div')};
  const rel = releases(slug);
  const unitBody = h('tbody');
  const units = pager({
    what: 'Units', empty: 'This Space has no Unit.', clear: () => fill(unitBody),
    fetchPage: async (token) => {
      const r = await api.call('UnitService', 'ListUnits', {Space: slug, Limit: UNITS_PER_PAGE,
        PageToken: token});
      return {items: r.Units || [], next: r.NextPageToken};
    },
    addRows: (list) => unitBody.append(...unitRows(list)),
  });
  fill(parts.units, h('div', {class: 'scroll'}, stackable(h('table', {class: 'units'},
    thead('Unit', 'Toolchain', 'Head revision', 'Last released', 'Updated'), unitBody))), units.el);
  fill(ctx.main, h('p', {}, h('a', {href: '#/'}, '← Rollouts')), h('h1', {}, `Space ${slug}`),
    parts.summary, h('h2', {}, 'Freezes in force'), parts.freezes,
    h('h2', {}, 'Releases'), h('div', {id: 'releases'}, rel.el),
    h('h2', {}, 'Deployment history'), h('div', {id: 'history'}, parts.history),
    h('h2', {}, 'Units'), h('div', {id: 'units'}, parts.units));

  const denied = (err) => {
    if (err.httpStatus === 401) { ctx.onUnauthenticated(); return true; }
    return false;
  };
  // Each section fails on its own, with the API's words in its place.
  const poll = async (sp) => {
    rel.reload();
    api.call('ReleaseService', 'ReleaseHistory', {Space: slug}).then(
      (r) => fill(parts.history, historyTable(r.Deployments || [])),
      (err) => denied(err) || fill(parts.history, errorText(err)));
    freezesInForce(sp.SpaceID).then((list) => fill(parts.freezes, freezeList(list)),
      (err) => denied(err) || fill(parts.freezes, errorText(err)));
  };
  let timer = null;
  api.call('SpaceService', 'GetSpace', {Space: slug}).then((sp) => {
    const labels = Object.entries(sp.Labels || {}).map(([k, v]) => `${k}=${v}`).join(', ');
    fill(parts.summary, h('dl', {class: 'summary'},
      h('dt', {}, 'Labels'), h('dd', {}, labels || 'none'),
      h('dt', {}, 'Release Target'), h('dd', {}, sp.ReleaseTarget || 'none'),
      h('dt', {}, 'Created'), h('dd', {}, when(sp.CreatedAt))));
    units.reload();
    poll(sp);
    timer = setInterval(() => poll(sp), POLL_MS);
  }, (err) => denied(err) || fill(parts.summary, errorText(err)));
  return () => { if (timer) clearInterval(timer); };
}
