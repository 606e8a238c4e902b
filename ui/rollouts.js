// Rollouts: the ChangeOrders the viewer can see, each with its Stages' progress, its State and
// what holds its next Stage. Live: each row follows WatchChangeOrder's server-sent events (a
// snapshot at once, then one per change); the list itself has no stream in the API, so it is
// polled for ChangeOrders created or gone. The list is paged by the server: a page of PAGE rows,
// "More" for the next; the poll asks again for as many rows as are shown (Limit may change
// between pages, docs/api.md "Paging").
import * as api from './api.js';
import {h, errorText, fill} from './dom.js';
import {coLink, holdsNext, spaceLink, stageBar, thead} from './widgets.js';

const STATES = ['', 'New', 'InProgress', 'Resolved', 'Released', 'Aborted', 'Restored',
  'RestoreReleased'];
const LIST_POLL_MS = 10000;
// Rows followed live at once. Each stream holds one of the browser's connections to cubd for as
// long as the page is open, and over HTTP/1.1 a browser opens 6 per host (Chromium, Firefox):
// with more streams than that every other call of the page queues behind them and the page
// stalls (tests/bench/ui_bench.sh found it at 30 ChangeOrders). So only the first rows stream;
// the others take a snapshot (WatchChangeOrder's first message, then closed) on each poll, at
// most SNAPSHOTS_AT_ONCE at a time, leaving a connection free for the page's other calls.
const MAX_LIVE = 3;
const SNAPSHOTS_AT_ONCE = 2;
const PAGE = 25;

// Runs the functions given to it SNAPSHOTS_AT_ONCE at a time, in order.
function limiter() {
  const queue = [];
  let running = 0;
  const next = () => {
    while (running < SNAPSHOTS_AT_ONCE && queue.length) {
      const fn = queue.shift();
      running++;
      fn().finally(() => { running--; next(); });
    }
  };
  return (fn) => { queue.push(fn); next(); };
}

function filters(params) {
  const space = h('input', {id: 'f-space', name: 'space', value: params.get('space') || '',
    placeholder: 'every Space'});
  const state = h('select', {id: 'f-state', name: 'state'},
    STATES.map((s) => h('option', {value: s, selected: s === (params.get('state') || '')},
      s || 'any')));
  const form = h('form', {class: 'filters', role: 'search', 'aria-label': 'Filter rollouts'},
    h('label', {for: 'f-space'}, 'Base Space'), space,
    h('label', {for: 'f-state'}, 'State'), state,
    h('button', {type: 'submit'}, 'Filter'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    if (space.value.trim()) q.set('space', space.value.trim());
    if (state.value) q.set('state', state.value);
    location.hash = `#/?${q}`;
  });
  return form;
}

// One row, kept current by its stream (live) or by refresh() on each poll (a snapshot queued on
// `queue`).
function row(co, live, queue) {
  const cells = {
    state: h('td', {class: 'state'}, co.State),
    stages: h('td', {class: 'stages'}, co.ChangeWorkflow ? '…' : 'no workflow'),
    holds: h('td', {class: 'holds'}),
  };
  const tr = h('tr', {'data-co': `${co.SpaceSlug}/${co.Slug}`},
    h('th', {scope: 'row'}, coLink(co)), h('td', {}, spaceLink(co.SpaceSlug)), cells.state,
    cells.stages, cells.holds);
  const key = {Space: co.SpaceSlug, ChangeOrder: co.Slug};
  // One explanation at a time; a snapshot that comes meanwhile asks for one more after it.
  let explaining = false;
  let again = false;
  const explain = async () => {
    if (explaining) { again = true; return; }
    explaining = true;
    try {
      fill(cells.holds, holdsNext(await api.call('ChangeOrderService', 'ExplainChangeOrder', key)));
    } catch (err) {
      fill(cells.holds, errorText(err));
    } finally {
      explaining = false;
      if (again) { again = false; explain(); }
    }
  };
  const onSnapshot = (p) => {
    fill(cells.state, p.State);
    if ((p.Stages || []).length) fill(cells.stages, p.Stages.map(stageBar));
    explain();
  };
  let stopped = false;
  // At most one snapshot waits in the queue per row: polls that come faster than the queue
  // drains (many rows shown) do not pile up snapshots behind it.
  let waiting = false;
  const refresh = () => {
    if (waiting) return;
    waiting = true;
    queue(() => {
      waiting = false;
      return stopped ? Promise.resolve() :
        api.first('ChangeOrderService', 'WatchChangeOrder', key).then(onSnapshot,
          (err) => fill(cells.holds, errorText(err)));
    });
  };
  if (!live) refresh();
  const stop = live
    ? api.stream('ChangeOrderService', 'WatchChangeOrder', key, onSnapshot,
      (err) => { if (err) fill(cells.holds, errorText(err)); })
    : () => { stopped = true; };
  return {tr, stop, refresh: live ? () => {} : refresh};
}

export function renderRollouts(ctx, params) {
  const status = h('div', {'aria-live': 'polite', class: 'status'});
  const body = h('tbody');
  const table = h('table', {class: 'rollouts'},
    h('caption', {}, 'ChangeOrders and their Stages (Spaces taken / released / healthy)'),
    thead('ChangeOrder', 'Base', 'State', 'Stages', 'Holds the next Stage'),
    body);
  const more = h('button', {type: 'button', class: 'more', hidden: true}, 'More ChangeOrders');
  fill(ctx.main, h('h1', {}, 'Rollouts'), filters(params), status,
    h('div', {class: 'scroll'}, table), more);
  const rows = new Map();  // ChangeOrderID -> {tr, stop, refresh}
  const where = params.get('state') ? `State = '${params.get('state')}'` : '';
  let shown = PAGE;  // rows asked for: PAGE, plus PAGE for each "More"
  let next = '';
  // View Basic: without the lists of Space IDs, which this page does not show and which at a
  // thousand Spaces in scope are most of a Full list's answer.
  const fetchRows = (limit, token) => api.callRows('ChangeOrderService', 'ListChangeOrders',
    {Space: params.get('space') || '', Options: {Where: where}, View: 'Basic', PageToken: token},
    'ChangeOrders', limit);
  const queue = limiter();
  // A row seen again by a poll takes a new snapshot (unless it streams).
  const add = (co) => {
    const r = rows.get(co.ChangeOrderID);
    if (r) r.refresh();
    else rows.set(co.ChangeOrderID, row(co, rows.size < MAX_LIVE, queue));
    body.append(rows.get(co.ChangeOrderID).tr);  // in the list's order
  };
  const shownText = () => `${rows.size} ChangeOrder(s)${next ? ', more on the server' : ''}`;
  // The rows shown, asked for again: new ones appear, gone ones leave.
  const load = async () => {
    let list;
    try {
      list = await fetchRows(Math.min(shown, 1000), '');
    } catch (err) {
      if (err.httpStatus === 401) return ctx.onUnauthenticated();
      return fill(status, errorText(err));
    }
    const seen = new Set();
    for (const co of list.items) {
      seen.add(co.ChangeOrderID);
      add(co);
    }
    for (const [id, r] of rows) {
      if (!seen.has(id)) { r.stop(); r.tr.remove(); rows.delete(id); }
    }
    next = list.next;
    more.hidden = !next;
    fill(status, shownText());
  };
  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      const list = await fetchRows(PAGE, next);
      list.items.forEach(add);
      shown += PAGE;
      next = list.next;
      more.hidden = !next;
      fill(status, shownText());
    } catch (err) {
      fill(status, errorText(err));
    } finally {
      more.disabled = false;
    }
  });
  load();
  const timer = setInterval(load, LIST_POLL_MS);
  return () => {
    clearInterval(timer);
    for (const r of rows.values()) r.stop();
  };
}
