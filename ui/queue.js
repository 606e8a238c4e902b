// Open promotions: what needs a person. The ChangeOrders waiting for the viewer's approval
// (ListChangeOrders where NeedsApprovalFrom holds the viewer), then the promotions queued into
// a Stage (ListQueuedPromotions) with the gates that hold them. Polled: the API has no stream
// for lists. A first slice of the issue's page: Review (the diff) is a later one.
import * as api from './api.js';
import {h, errorText, fill, when} from './dom.js';

const POLL_MS = 10000;

function coHref(base, name) {
  return `#/co/${encodeURIComponent(base)}/${encodeURIComponent(name)}`;
}

function needsMe(list) {
  if (list.length === 0) return h('p', {}, 'Nothing waits for your vote.');
  return h('ul', {class: 'open'}, list.map((co) => h('li', {},
    h('a', {href: coHref(co.SpaceSlug, co.Slug)}, `${co.SpaceSlug}/${co.Slug}`),
    ` — ${co.State}; review and approve`)));
}

function queued(list) {
  if (list.length === 0) return h('p', {}, 'No promotion is queued.');
  return h('ul', {class: 'open'}, list.map((q) => h('li', {},
    h('a', {href: coHref(q.BaseSpace, q.ChangeOrder.split('/').slice(1).join('/'))},
      q.ChangeOrder),
    ` into ${q.Stage}, queued by ${q.QueuedBy} ${when(q.QueuedAt)}; waits for `,
    (q.Waits || []).map((w) => `${w.Gate} in ${w.Space}${w.Needs ? ` (${w.Needs})` : ''}`)
      .join('; ') || (q.WaitingFor || []).join('; ') || 'nothing now')));
}

export function renderQueue(ctx) {
  const mine = h('div');
  const waiting = h('div');
  fill(ctx.main, h('h1', {}, 'Open promotions'), h('h2', {}, 'Waiting for your vote'), mine,
    h('h2', {}, 'Queued promotions'), waiting);
  const load = async () => {
    const me = ctx.who.User.UserID.replace(/'/g, '');
    try {
      const [cos, qs] = await Promise.all([
        api.call('ChangeOrderService', 'ListChangeOrders',
          {Options: {Where: `NeedsApprovalFrom ? '${me}'`}}),
        api.call('PromotionService', 'ListQueuedPromotions', {})]);
      fill(mine, needsMe(cos.ChangeOrders || []));
      fill(waiting, queued(qs.QueuedPromotions || []));
    } catch (err) {
      if (err.httpStatus === 401) return ctx.onUnauthenticated();
      fill(mine, errorText(err));
    }
  };
  load();
  const timer = setInterval(load, POLL_MS);
  return () => clearInterval(timer);
}
