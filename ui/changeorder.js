// One ChangeOrder: its Stages as waves (progress, and each Space with what it has done), the
// gates that hold it with the API's explanation, votes, failures and overrides, and the
// actions: promote or queue here, and a link to the Review page, where the change is shown and
// voted on (ui/review.js). Live through WatchChangeOrder; every action's refusal is shown, as
// the API words it, next to the action.
import * as api from './api.js';
import {h, errorText, fill, when} from './dom.js';
import {pager} from './pager.js';
import * as users from './users.js';
import {coName, holdsNext, reviewHref, spaceLink, stackable, stageBar, thead}
  from './widgets.js';

const SPACES_PER_WAVE = 50;

function spaceState(co, id) {
  const has = (list) => (list || []).includes(id);
  if (has(co.RestoredSpaceIDs)) return 'restored';
  if (has(co.ReleasedSpaceIDs)) return 'released';
  if (has(co.ResolvedSpaceIDs)) return 'taken';
  return 'not yet';
}

function setState(li, co) {
  const st = spaceState(co, li.dataset.spaceId);
  li.className = `space ${st.replace(' ', '-')}`;
  fill(li.querySelector('.tag'), st);
}

// The Stages as waves: each its progress (from WatchChangeOrder) and its in-scope Spaces, as
// ListSpaces selects them with the Stage's WhereSpace and the ChangeOrder's scope, a page at a
// time (a Stage may hold a thousand Spaces). Built once; update() follows the ChangeOrder.
function makeWaves(co) {
  const ids = co.InScopeSpaceIDs || [];
  let latest = co;
  const items = ((co.Workflow && co.Workflow.Stages) || []).map((stage) => {
    const bar = h('div');
    const ul = h('ul', {class: 'spaces'});
    const where = `${stage.WhereSpace ? `(${stage.WhereSpace}) AND ` : ''}SpaceID IN (` +
      `${ids.map((id) => `'${id}'`).join(', ')})`;
    const p = pager({
      what: `Spaces of ${stage.Name}`, empty: 'No Space in scope.', clear: () => fill(ul),
      fetchPage: async (token) => {
        if (ids.length === 0) return {items: [], next: ''};
        const r = await api.call('SpaceService', 'ListSpaces', {Limit: SPACES_PER_WAVE,
          PageToken: token, Options: {Where: where}});
        return {items: r.Spaces || [], next: r.NextPageToken};
      },
      addRows: (spaces) => ul.append(...spaces.map((sp) => {
        const li = h('li', {'data-space': sp.Slug, 'data-space-id': sp.SpaceID},
          spaceLink(sp.Slug), ' ', h('span', {class: 'tag'}));
        setState(li, latest);
        return li;
      })),
    });
    p.reload();
    const li = h('li', {class: 'wave', 'data-stage': stage.Name},
      h('h3', {}, stage.Name, ' ', h('span', {class: 'mode'}, stage.Mode || 'Manual')),
      bar, ul, p.el);
    return {stage, bar, ul, li};
  });
  const update = (now, progress) => {
    latest = now;
    const byName = new Map((progress || []).map((x) => [x.Stage, x]));
    for (const i of items) {
      fill(i.bar, stageBar(byName.get(i.stage.Name) ||
        {Stage: i.stage.Name, Total: 0, Taken: 0, Released: 0, Healthy: 0}));
      for (const li of i.ul.children) setState(li, now);
    }
  };
  return {el: h('ol', {class: 'waves', 'aria-label': 'Stages'}, items.map((i) => i.li)), update};
}

function gates(explain) {
  const stages = (explain && explain.Stages) || [];
  if (stages.length === 0) return h('p', {}, holdsNext(explain) || 'Nothing holds it.');
  return h('div', {}, h('p', {class: 'holds'}, holdsNext(explain)), stages.map((s) =>
    h('section', {class: 'gate-stage'},
      h('h3', {}, `${s.Stage || 'Final'}: ${s.Phase}`, s.Next ? ' (next)' : '',
        s.Queued ? ` (queued by ${s.QueuedBy})` : ''),
      (s.Waits || []).length === 0 ? h('p', {}, 'No gate holds it.') :
        h('ul', {class: 'waits'}, s.Waits.map((w) => h('li', {class: 'wait'},
          h('strong', {}, w.Gate), ` (${w.Kind}) in ${w.Space}: `, w.Needs || '',
          w.NeedsFrom && w.NeedsFrom.length ? ` from ${w.NeedsFrom.join(', ')}` : '',
          w.Earliest ? `, at the earliest ${when(w.Earliest)}` : '',
          h('div', {class: 'message'}, w.Message)))))));
}

// The ChangeOrder's votes in every Space, paged by the server (ListAttestations by
// ChangeOrderID), oldest first.
function approvals(coId) {
  const body = h('tbody');
  const p = pager({
    what: 'votes', empty: 'No votes yet.', clear: () => body.replaceChildren(),
    fetchPage: async (token) => {
      const r = await api.call('AttestationService', 'ListAttestations', {Limit: 25,
        PageToken: token, Options: {Where: `ChangeOrderID = '${coId}'`}});
      users.learn(r.Attestations);
      return {items: r.Attestations || [], next: r.NextPageToken};
    },
    addRows: (list) => body.append(...list.map((a) => h('tr',
      {class: a.RevokedByID ? 'revoked' : ''},
      h('td', {}, a.User), h('td', {}, when(a.CreatedAt)), h('td', {}, spaceLink(a.SpaceSlug)),
      h('td', {}, a.Type), h('td', {}, a.RevokedByID ? `${a.Result} (revoked)` : a.Result),
      h('td', {}, a.Note)))),
  });
  const el = h('div', {}, h('div', {class: 'scroll'}, stackable(h('table', {class: 'approvals'},
    thead('Who', 'When', 'Space', 'Type', 'Result', 'Note'), body))), p.el);
  return {el, reload: p.reload};
}

function incidents(co) {
  const f = (co.PromotionFailures || []).map((x) => h('li', {},
    `${when(x.At)} ${x.User} into ${x.Stage}: landed ${x.Landed}; `,
    (x.Spaces || []).map((s) => `${s.Space}: ${s.Error}`).join('; ')));
  const o = (co.PromotionOverrides || []).map((x) => h('li', {},
    `${when(x.At)} ${x.User} forced ${x.Stage} past ${(x.FailedGates || []).join(', ')}: `,
    x.Reason));
  if (f.length + o.length === 0) return null;
  return h('section', {}, h('h2', {}, 'Failures and overrides'), h('ul', {}, f, o));
}

// The buttons, each with its own result line for the API's answer or refusal.
// `now()` is the latest {co, explain}: the buttons stay (and keep focus) while it changes.
function nextStage(explain) {
  return ((explain && explain.Stages) || []).find((s) => s.Next);
}

function actions(now, refresh) {
  const result = h('div', {id: 'action-result', 'aria-live': 'polite'});
  const act = (label, id, fn) => h('button', {type: 'button', id, onclick: async () => {
    fill(result, h('p', {}, `${label}…`));
    try {
      fill(result, h('p', {class: 'ok'}, await fn()));
    } catch (err) {
      fill(result, h('p', {class: 'error', role: 'alert'}, `${label}: ${err.message}`));
    }
    refresh();
  }}, label);
  const promote = async (queue) => {
    const {co} = now();
    const r = await api.call('ChangeOrderService', 'Promote', {ChangeOrder: coName(co),
      Queue: queue});
    if (r.Queued && r.Queued.Stage) return `Queued into ${r.Queued.Stage}`;
    return `Promoted into ${r.TargetStage}: ${r.Landed} landed, ${r.Already} already, ` +
      `${r.Failed} failed`;
  };
  return h('section', {class: 'actions', 'aria-labelledby': 'actions-title'},
    h('h2', {id: 'actions-title'}, 'Actions ', h('span', {id: 'next-stage'})),
    h('div', {class: 'row buttons'},
      h('a', {class: 'button', id: 'review', href: reviewHref(now().co.SpaceSlug,
        now().co.Slug)}, 'Review the change and vote'),
      act('Promote', 'promote', () => promote(false)),
      act('Queue promotion', 'queue', () => promote(true))),
    result);
}

export function renderChangeOrder(ctx, base, name) {
  const key = {Space: base, ChangeOrder: name};
  const title = h('h1', {}, `ChangeOrder ${base}/${name}`);
  const parts = {summary: h('div'), actions: h('div'), waves: h('div'), gates: h('div'),
    approvals: h('div'), incidents: h('div')};
  fill(ctx.main, h('p', {}, h('a', {href: '#/'}, '← Rollouts')), title, parts.summary,
    parts.actions, h('h2', {}, 'Stages'), parts.waves, h('h2', {}, 'Gates'), parts.gates,
    h('h2', {}, 'Votes'), parts.approvals, parts.incidents);
  let votes = null;
  let waves = null;
  let last = null;
  let state = null;
  let latest = 0;  // refreshes overlap (events, actions): only the newest one renders
  // Renders the ChangeOrder `given` (a WatchChangeOrder snapshot carries it as GetChangeOrder
  // answers it, so it is not asked again), or the one GetChangeOrder answers now, with the
  // explanation `explaining` (one under way) or a new one.
  const refresh = async (given = null, explaining = null) => {
    const mine = ++latest;
    try {
      const [co, explain] = await Promise.all([
        given || api.call('ChangeOrderService', 'GetChangeOrder', key),
        explaining || api.call('ChangeOrderService', 'ExplainChangeOrder', key)]);
      if (mine !== latest) return;
      users.learn(co.PromotionFailures);
      users.learn(co.PromotionOverrides);
      const created = h('dd', {id: 'co-created', title: `user ID ${co.CreatedBy}`},
        `${users.label(co.CreatedBy)}, ${when(co.CreatedAt)}`);
      // The creator's name may take a few calls to learn (ui/users.js): the page does not wait.
      users.nameOf(co.CreatedBy, co.SpaceSlug).then((name) => {
        if (name) fill(created, `${name}, ${when(co.CreatedAt)}`);
      });
      fill(parts.summary, h('dl', {class: 'summary'},
        h('dt', {}, 'State'), h('dd', {id: 'co-state'}, co.State),
        h('dt', {}, 'Stage'), h('dd', {}, co.Stage || '(base)'),
        h('dt', {}, 'Base'), h('dd', {}, spaceLink(co.SpaceSlug)),
        h('dt', {}, 'Workflow'), h('dd', {}, co.ChangeWorkflow || 'none'),
        h('dt', {}, 'Created'), created,
        h('dt', {}, 'Description'), h('dd', {}, co.Description)));
      state = {co, explain};
      if (!parts.actions.firstChild) fill(parts.actions, actions(() => state, () => refresh()));
      const next = nextStage(explain);
      fill(document.getElementById('next-stage'), next ? `(next Stage: ${next.Stage})` : '');
      if (!waves) {
        waves = makeWaves(co);
        fill(parts.waves, waves.el);
      }
      waves.update(co, last && last.Stages);
      fill(parts.gates, gates(explain));
      if (!votes) {
        votes = approvals(co.ChangeOrderID);
        fill(parts.approvals, votes.el);
      }
      votes.reload();
      fill(parts.incidents, incidents(co));
    } catch (err) {
      if (err.httpStatus === 401) return ctx.onUnauthenticated();
      fill(parts.summary, errorText(err));
    }
  };
  // WatchChangeOrder sends the ChangeOrder and its progress at once, then on each change: each
  // message renders the page with a new explanation, the first one with the explanation asked
  // for as the page opened (at the same time as the stream, not after its first message). A
  // stream that ends before any message leaves the page loaded without the live progress.
  let opening = api.call('ChangeOrderService', 'ExplainChangeOrder', key);
  opening.catch(() => {});  // its refusal is shown by the refresh that uses it
  return api.stream('ChangeOrderService', 'WatchChangeOrder', key,
    (p) => {
      last = p;
      refresh(p.ChangeOrder || null, opening);
      opening = null;
    },
    async (err) => {
      if (!last) await refresh(null, opening);
      if (err) fill(parts.summary, errorText(err));
    });
}
