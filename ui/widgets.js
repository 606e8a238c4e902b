// Pieces the pages share: a Stage's progress, what holds a ChangeOrder, names and links.
import {h} from './dom.js';

const enc = encodeURIComponent;

export function coHref(base, name) {
  return `#/co/${enc(base)}/${enc(name)}`;
}

// The Review page of ChangeOrder BASE/NAME, in `space` (default: where a vote counts now).
export function reviewHref(base, name, space) {
  return `#/review/${enc(base)}/${enc(name)}${space ? `?space=${enc(space)}` : ''}`;
}

export function spaceHref(slug) {
  return `#/space/${enc(slug)}`;
}

export function spaceLink(slug) {
  return h('a', {href: spaceHref(slug), class: 'space-link'}, slug);
}

// "BASE/NAME" of a ChangeOrder, as the API names it in Promote and Approve.
export function coName(co) {
  return `${co.SpaceSlug}/${co.Slug}`;
}

export function coLink(co) {
  return h('a', {href: coHref(co.SpaceSlug, co.Slug)}, co.Slug);
}

function share(n, total) {
  return total > 0 ? `${Math.round((100 * n) / total)}%` : '0%';
}

// One Stage of WatchChangeOrder's StageProgress: a bar of the Spaces taken, released and
// healthy (each a subset of the one before), with the counts as text for everyone.
export function stageBar(p) {
  const bar = h('span', {class: 'bar', 'aria-hidden': 'true'});
  for (const [cls, n] of [['taken', p.Taken], ['released', p.Released], ['healthy', p.Healthy]]) {
    const seg = h('span', {class: `seg ${cls}`});
    seg.style.width = share(n, p.Total);  // CSSOM, which the CSP allows (no style attribute)
    bar.append(seg);
  }
  const text = `${p.Taken}/${p.Total} taken, ${p.Released} released, ${p.Healthy} healthy`;
  return h('div', {class: 'stage', 'data-stage': p.Stage},
    h('span', {class: 'stage-name'}, p.Stage), bar,
    h('span', {class: 'counts', 'data-counts': `${p.Taken}/${p.Released}/${p.Healthy}/${p.Total}`},
      text));
}

// What ExplainChangeOrder says holds the next Stage, in a sentence: its gates that do not
// hold, or that nothing does.
export function holdsNext(explain) {
  if (!explain) return '';
  if (explain.Completed) return 'Completed';
  if (explain.AbortedReason) return `Aborted: ${explain.AbortedReason}`;
  const next = (explain.Stages || []).find((s) => s.Next && s.Phase === 'Entry');
  const held = (explain.Stages || []).filter((s) => (s.Waits || []).length > 0);
  if (!next && held.length === 0) return 'Nothing holds it';
  const stage = next || held[0];
  const waits = stage.Waits || [];
  if (waits.length === 0) {
    return `${stage.Stage}: nothing holds it${stage.Mode === 'Manual' ? ' (promote by hand)' : ''}`;
  }
  const gates = [...new Set(waits.map((w) => `${w.Gate}${w.Needs ? ` (${w.Needs})` : ''}`))];
  return `${stage.Stage}${stage.Queued ? ' (queued)' : ''}: waits for ${gates.join('; ')}`;
}

// A table's head row: one column header per name.
export function thead(...cols) {
  return h('thead', {}, h('tr', {}, cols.map((c) => h('th', {scope: 'col'}, c))));
}

// A table that becomes one block per row at phone width (style.css, table.stack): each cell
// gets its column's header as data-label, shown above it there; rows added later (a page, a
// poll) are labelled as they come.
export function stackable(table) {
  const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent);
  const label = (tr) => [...tr.children].forEach((c, i) => {
    if (heads[i]) c.dataset.label = heads[i];
  });
  for (const body of table.tBodies) {
    [...body.rows].forEach(label);
    new MutationObserver((muts) => muts.forEach((m) => m.addedNodes.forEach((n) => {
      if (n.nodeName === 'TR') label(n);
    }))).observe(body, {childList: true});
  }
  table.classList.add('stack');
  return table;
}
