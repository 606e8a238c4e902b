// Review: what a ChangeOrder changes in one Space (its base, or a variant it has reached), Unit
// by Unit as DiffUnit reports it between the ChangeOrder's start and what it publishes
// ("Before:ChangeOrder:BASE/NAME" to "ChangeOrder:BASE/NAME"), and the viewer's vote on it:
// Approve or Request changes, each an Attestation exactly as `cub variant approve` records it
// (Reject: true is the request for changes, which blocks the gate until replaced or revoked).
// Who may not vote is told why instead of being offered a button (ui/vote.js).
//   #/review/<base>/<name>?space=<slug>
import * as api from './api.js';
import {h, errorText, fill, when} from './dom.js';
import {unitDiff} from './diff.js';
import {pager} from './pager.js';
import * as users from './users.js';
import {authored, gateWaits, myVotes, needsFrom, roleCheck} from './vote.js';
import {coHref, reviewHref, spaceLink, stackable, thead} from './widgets.js';

const UNITS_PER_PAGE = 10;

// Where a vote counts now: the Space of the next Stage's attestation gate that does not hold
// yet; else a Space of the Stage the change is in that took it (the next Stage's gates read
// the votes of the Stage before it, also once they hold); else the base.
async function defaultSpace(co, explain, base) {
  for (const s of (explain && explain.Stages) || []) {
    const w = (s.Waits || []).find((x) => x.Kind === 'Attestation');
    if (s.Next && w) return w.Space;
  }
  const stage = ((co.Workflow && co.Workflow.Stages) || []).find((s) => s.Name === co.Stage);
  const taken = co.ResolvedSpaceIDs || [];
  if (!stage || taken.length === 0) return base;
  const r = await api.call('SpaceService', 'ListSpaces', {Limit: 1, Options: {Where:
    `${stage.WhereSpace ? `(${stage.WhereSpace}) AND ` : ''}SpaceID IN (` +
    `${taken.map((id) => `'${id}'`).join(', ')})`}});
  return ((r.Spaces || [])[0] || {}).Slug || base;
}

// The Spaces the change has reached (its base and those that took it), as links, paged.
function reachedSpaces(co, base, current) {
  const list = h('ul', {class: 'reached'});
  const ids = [co.SpaceID, ...(co.ResolvedSpaceIDs || []).filter((id) => id !== co.SpaceID)];
  const p = pager({
    what: 'Spaces', empty: 'The change has reached no Space you can see.',
    clear: () => fill(list),
    fetchPage: async (token) => {
      const r = await api.call('SpaceService', 'ListSpaces', {Limit: 25, PageToken: token,
        Options: {Where: `SpaceID IN (${ids.map((id) => `'${id}'`).join(', ')})`}});
      return {items: r.Spaces || [], next: r.NextPageToken};
    },
    addRows: (spaces) => list.append(...spaces.map((sp) => h('li', {},
      h('a', {href: reviewHref(base, co.Slug, sp.Slug),
        'aria-current': sp.Slug === current ? 'page' : false}, sp.Slug),
      sp.SpaceID === co.SpaceID ? ' (base)' : ''))),
  });
  p.reload();
  return h('nav', {'aria-label': 'Spaces the change reached'}, list, p.el);
}

function voteList(votes) {
  return votes.map((a) => h('tr', {class: a.RevokedByID ? 'revoked' : ''},
    h('td', {}, a.User), h('td', {}, when(a.CreatedAt)),
    h('td', {class: `result ${a.Result}`},
      a.Result === 'Fail' ? 'Requested changes' : a.Result === 'Pass' ? 'Approved' : a.Result,
      a.RevokedByID ? ' (revoked)' : ''),
    h('td', {}, a.Note)));
}

export function renderReview(ctx, base, name, params) {
  const coRef = `${base}/${name}`;
  const key = {Space: base, ChangeOrder: name};
  const me = ctx.who.User;
  users.learnSession(ctx.who);
  const parts = {summary: h('div'), spaces: h('div'), vote: h('section',
    {class: 'actions', id: 'vote', 'aria-labelledby': 'vote-title'}), votes: h('div'),
  diffs: h('div', {id: 'diffs'}), notReached: h('p', {id: 'not-reached', class: 'help'})};
  const title = h('h1', {}, `Review ${coRef}`);
  fill(ctx.main, h('p', {}, h('a', {href: coHref(base, name)}, `← ChangeOrder ${coRef}`)),
    title, parts.summary, h('h2', {}, 'Spaces'), parts.spaces, parts.vote,
    h('h2', {}, 'Votes here'), parts.votes, h('h2', {}, 'The change, Unit by Unit'),
    parts.diffs, parts.notReached);
  let stopped = false;

  // Everything that does not wait on something else starts at once: the ChangeOrder, its
  // explanation and, when the URL names the Space, the Space and its Units' diffs (which need
  // only the Space and the ChangeOrder's name). Only without ?space= does the Space wait for
  // the ChangeOrder (defaultSpace).
  const start = async () => {
    const coAsked = api.call('ChangeOrderService', 'GetChangeOrder', key);
    const explainAsked = api.call('ChangeOrderService', 'ExplainChangeOrder', key);
    let space = params.get('space');
    let spAsked = null;
    let voteReady = null;  // resolves to the vote's controller, once the Space is known
    let ready = () => {};
    const early = () => {
      spAsked = api.call('SpaceService', 'GetSpace', {Space: space});
      spAsked.catch(() => {});  // shown below, where it is awaited
      voteReady = new Promise((resolve) => { ready = resolve; });
      diffs(space, coRef, me, parts, voteReady, () => stopped);
    };
    if (space) early();
    let co;
    let explain;
    try {
      [co, explain] = await Promise.all([coAsked, explainAsked]);
      if (!space) {
        space = await defaultSpace(co, explain, base);
        early();
      }
    } catch (err) {
      if (err.httpStatus === 401) return ctx.onUnauthenticated();
      fill(parts.diffs);  // no diff is shown of a ChangeOrder that cannot be read
      return fill(parts.summary, errorText(err));
    }
    fill(title, `Review ${coRef} in ${space}`);
    fill(parts.summary, h('dl', {class: 'summary'},
      h('dt', {}, 'Description'), h('dd', {}, co.Description),
      h('dt', {}, 'State'), h('dd', {}, co.State),
      h('dt', {}, 'Stage'), h('dd', {}, co.Stage || '(base)'),
      h('dt', {}, 'Space'), h('dd', {id: 'review-space'}, spaceLink(space)),
      h('dt', {}, 'Compares'), h('dd', {}, h('code', {}, `Before:ChangeOrder:${coRef}`), ' → ',
        h('code', {}, `ChangeOrder:${coRef}`))));
    fill(parts.spaces, reachedSpaces(co, base, space));
    let sp;
    try {
      sp = await spAsked;
    } catch (err) {
      return fill(parts.diffs, errorText(err));
    }
    const ctl = voting(ctx, co, coRef, sp, parts.vote, explain);
    const votes = votesHere(co, sp, parts.votes);
    ctl.onVoted = () => votes.reload();
    ready(ctl);
    votes.reload();
    ctl.check(false);
  };
  start();
  return () => { stopped = true; };
}

// This ChangeOrder's votes in the Space, newest page first from the server (oldest first
// within it, as the API orders them).
function votesHere(co, sp, el) {
  const body = h('tbody');
  const p = pager({
    what: 'votes', empty: 'No vote on this change here yet.', clear: () => fill(body),
    fetchPage: async (token) => {
      const r = await api.call('AttestationService', 'ListAttestations', {Limit: 25,
        PageToken: token, Options: {Where: `ChangeOrderID = '${co.ChangeOrderID}' AND ` +
          `SpaceID = '${sp.SpaceID}'`}});
      users.learn(r.Attestations);
      return {items: r.Attestations || [], next: r.NextPageToken};
    },
    addRows: (votes) => body.append(...voteList(votes)),
  });
  fill(el, h('div', {class: 'scroll'}, stackable(h('table', {class: 'approvals'},
    thead('Who', 'When', 'Vote', 'Note'), body))), p.el);
  return p;
}

// The Units of the Space, a page at a time, each with its diff. A Unit the change did not reach
// is named in one line below (the API's NOT_FOUND for its selector); any other refusal is
// shown in the Unit's place as the API words it. Each diff's revision range also tells whether
// the viewer wrote part of the change here (ctl.authoredIn), told to the vote's controller once
// `voteReady` gives it (the diffs do not wait for it).
function diffs(space, coRef, me, parts, voteReady, stopped) {
  const list = h('div');
  const notReached = [];
  let firstPage = true;
  const p = pager({
    what: 'Units', empty: 'This Space has no Unit.', clear: () => fill(list),
    fetchPage: async (token) => {
      const r = await api.call('UnitService', 'ListUnits', {Space: space, Limit: UNITS_PER_PAGE,
        PageToken: token});
      return {items: r.Units || [], next: r.NextPageToken};
    },
    addRows: (units) => {
      const done = units.map((u) => unitRow(u));
      // The vote waits for the first page's authorship to be known (see voting()).
      if (firstPage) {
        Promise.allSettled(done).then(() => voteReady).then((ctl) => ctl.authorsChecked());
      }
      firstPage = false;
    },
  });
  const unitRow = (u) => {
    const slot = h('div', {class: 'unit-slot'}, h('p', {class: 'help'}, `${u.Slug}: loading…`));
    list.append(slot);
    return api.call('UnitService', 'DiffUnit', {Space: space, Unit: u.Slug,
      From: `Before:ChangeOrder:${coRef}`, To: `ChangeOrder:${coRef}`}).then((d) => {
      if (stopped()) return;
      fill(slot, unitDiff(u.Slug, d));
      return authored(space, u.Slug, d.FromRevisionNum, d.ToRevisionNum, me.UserID)
        .then(async (rev) => { if (rev) (await voteReady).authoredIn(u.Slug, rev); });
    }, (err) => {
      if (err.httpStatus === 404 && /has not reached/.test(err.message)) {
        slot.remove();
        notReached.push(u.Slug);
        fill(parts.notReached, `Not changed by this ChangeOrder here: ${notReached.join(', ')}`);
      } else {
        fill(slot, h('section', {class: 'unit-diff', 'data-unit': u.Slug},
          h('h3', {}, u.Slug), errorText(err)));
      }
    }).catch((err) => fill(slot, errorText(err)));
  };
  fill(parts.diffs, list, p.el);
  p.reload();
}

// The vote: either the note and the two buttons, or why the viewer may not vote.
function voting(ctx, co, coRef, sp, el, explain) {
  const authorOf = [];
  let role = null;  // '' allowed, else the API's refusal; null while it is being asked
  let authorsKnown = false;  // the first page of Units checked for the viewer's revisions
  let mine = [];
  let shown = '';
  const note = h('input', {id: 'vote-note', name: 'note', autocomplete: 'off'});
  const result = h('div', {id: 'vote-result', 'aria-live': 'polite'});
  const status = h('div', {id: 'vote-status'});
  const body = h('div');
  fill(el, h('h2', {id: 'vote-title'}, `Your vote in ${sp.Slug}`), status, body, result);

  const cast = (reject) => async () => {
    const label = reject ? 'Request changes' : 'Approve';
    fill(result, h('p', {}, `${label}…`));
    try {
      const r = await api.call('AttestationService', 'Approve', {ChangeOrder: coRef,
        Spaces: [sp.Slug], Note: note.value, Reject: reject});
      const where = (r.Attestations || []).map((a) => a.SpaceSlug).join(', ');
      fill(result, h('p', {class: 'ok'}, `Recorded ${reject ? 'a request for changes' :
        'an approval'} in ${where || 'no Space'}`));
      note.value = '';
    } catch (err) {
      if (err.httpStatus === 401) return ctx.onUnauthenticated();
      fill(result, h('p', {class: 'error', role: 'alert'}, `${label}: ${err.message}`));
    }
    ctl.onVoted();
    ctl.check();
  };

  const render = () => {
    const last = mine[mine.length - 1];
    const needed = needsFrom(explain, sp.Slug);
    fill(status,
      last ? h('p', {id: 'my-vote'}, `Your vote here: ${last.Result === 'Fail' ?
        'changes requested' : last.Result === 'Pass' ? 'approved' : last.Result}`,
      last.RevokedByID ? ' (revoked)' : '', `, ${when(last.CreatedAt)}`,
      last.Note ? ` — “${last.Note}”` : '', '. A new vote replaces it.') : null,
      gateWaits(explain, sp.Slug).map((w) => h('p', {class: 'gate-message'},
        h('strong', {}, w.Gate), `: ${w.Message}`)),
      needed.length ? h('p', {class: 'help'}, `The gate here still waits for a vote from `,
        needed.join(', '), '.') : null);
    const reasons = [];
    if (role) reasons.push(role);
    for (const a of authorOf) {
      reasons.push(`You wrote revision ${a.rev.RevisionNum} of ${a.unit} in ${sp.Slug}, ` +
        'which is part of this change: the authors of a change do not count toward its ' +
        'approvals, so your vote would be recorded and not counted.');
    }
    const key = `${role}|${authorOf.length}`;
    if (role === null || (!authorsKnown && reasons.length === 0)) {
      return fill(body, h('p', {class: 'help'}, 'Checking whether you may vote…'));
    }
    if (key === shown) return;
    shown = key;
    if (reasons.length) {
      return fill(body, h('div', {id: 'vote-refused', role: 'status'},
        h('p', {}, h('strong', {}, 'You cannot vote on this change here:')),
        h('ul', {}, reasons.map((r) => h('li', {class: 'reason'}, r)))));
    }
    fill(body,
      h('div', {class: 'row'}, h('label', {for: 'vote-note'}, 'Note for your vote'), note),
      h('div', {class: 'row buttons'},
        h('button', {type: 'button', id: 'approve', onclick: cast(false)}, 'Approve'),
        h('button', {type: 'button', id: 'reject', class: 'secondary', onclick: cast(true)},
          'Request changes')),
      h('p', {class: 'help'}, 'Your vote covers the revisions of this Space that a Release of ',
        'the change publishes. Requesting changes holds the gate until you approve or revoke.'));
  };

  const ctl = {
    onVoted: () => {},
    authoredIn: (unit, rev) => { authorOf.push({unit, rev}); render(); },
    authorsChecked: () => { authorsKnown = true; render(); },
    // `fresh`: ExplainChangeOrder is asked again (after a vote); the first check uses the one
    // the page loaded with.
    check: async (fresh = true) => {
      try {
        const [r, m, ex] = await Promise.all([roleCheck(coRef, sp.Slug),
          myVotes(co.ChangeOrderID, sp.SpaceID, ctx.who.User.UserID),
          fresh ? api.call('ChangeOrderService', 'ExplainChangeOrder',
            {Space: co.SpaceSlug, ChangeOrder: co.Slug}) : explain]);
        role = r;
        mine = m;
        explain = ex;
        render();
      } catch (err) {
        if (err.httpStatus === 401) return ctx.onUnauthenticated();
        fill(status, errorText(err));
      }
    },
  };
  render();
  return ctl;
}
