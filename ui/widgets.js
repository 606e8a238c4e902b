// Pieces the pages share: a Stage's progress, what holds a ChangeOrder, a ChangeOrder's name.
import {h} from './dom.js';

// "BASE/NAME" of a ChangeOrder, as the API names it in Promote and Approve.
export function coName(co) {
  return `${co.SpaceSlug}/${co.Slug}`;
}

export function coLink(co) {
  const href = `#/co/${encodeURIComponent(co.SpaceSlug)}/${encodeURIComponent(co.Slug)}`;
  return h('a', {href}, co.Slug);
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
