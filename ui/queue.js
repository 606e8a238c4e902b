// Open promotions: what needs a person. The ChangeOrders waiting for the viewer's approval
// (ListChangeOrders where NeedsApprovalFrom holds the viewer), then the promotions queued into
// a Stage (ListQueuedPromotions) with the gates that hold them. Polled: the API has no stream
// for lists. Each ChangeOrder waiting for a vote leads to its Review page (ui/review.js).
import * as api from './api.js';
import {h, errorText, fill, when} from './dom.js';
import {coHref, reviewHref} from './widgets.js';

const POLL_MS = 10000;

function needsMe(list) {
  if (list.length === 0) return h('p', {}, 'Nothing waits for your vote.');
  return h('ul', {class: 'open'}, list.map((co) => h('li',
    {'data-co': `${co.SpaceSlug}/${co.Slug}`},
    h('a', {href: coHref(co.SpaceSlug, co.Slug)}, `${co.SpaceSlug}/${co.Slug}`),
    ` — ${co.State}${co.Description ? `: ${co.Description}` : ''} `,
    h('a', {class: 'button', href: reviewHref(co.SpaceSlug, co.Slug),
      'aria-label': `Review ${co.SpaceSlug}/${co.Slug}`}, 'Review'))));
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
        api.callRows('ChangeOrderService', 'ListChangeOrders',
          {Options: {Where: `NeedsApprovalFrom ? '${me}'`}, View: 'Basic'}, 'ChangeOrders', 50),
        api.call('PromotionService', 'ListQueuedPromotions', {})]);
      fill(mine, needsMe(cos.items), cos.next ? h('p', {class: 'help'},
        `The first ${cos.items.length} by base Space and name; there are more.`) : null);
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
